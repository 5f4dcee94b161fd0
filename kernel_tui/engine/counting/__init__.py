"""What a run's kernels did, counted: the profiler's events and the kernels among them (``events``,
``profiling``), bytes moved (``traffic``), FLOPs, times, peak memory, the call's timeline, library calls, which
eager operators and which lines each kernel came from, and the device's ceilings (``bandwidth``).

The bottom layer: it imports nothing else of the engine, so every analysis here can be fed a recorded trace.
"""
