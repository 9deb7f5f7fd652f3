"""Event-driven simulation of moldable jobs on a GPU cluster."""

from engine.simulator.core import PolicyError, SimulationStalled, Simulator, simulate
from engine.simulator.results import Decision, SimulationResult, Summary

__all__ = [
    "Decision",
    "PolicyError",
    "SimulationResult",
    "SimulationStalled",
    "Simulator",
    "Summary",
    "simulate",
]
