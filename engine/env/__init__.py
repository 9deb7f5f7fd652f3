"""The reinforcement-learning view of the simulator.

``spec`` (observation/action sizes), ``features`` (state -> observation and mask),
``planning`` (action-at-a-time chooser -> a policy's starts), ``curriculum`` (training
workloads) and ``moldable_env`` (the Gymnasium environment). Import the submodules
directly: the policy registry imports ``features`` and ``planning``, so this package
must not import the simulator when it is first loaded.
"""
