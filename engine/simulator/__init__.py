"""Event-driven simulation of rigid, moldable and malleable jobs on a GPU cluster."""

from engine.simulator.core import (
    PolicyError,
    SimulationStalled,
    Simulator,
    make_simulator,
    simulate,
)
from engine.simulator.elastic import RESTART_DELAY, ElasticSimulator
from engine.simulator.results import Decision, SimulationResult, Summary

__all__ = [
    "RESTART_DELAY",
    "Decision",
    "ElasticSimulator",
    "PolicyError",
    "SimulationResult",
    "SimulationStalled",
    "Simulator",
    "Summary",
    "make_simulator",
    "simulate",
]
