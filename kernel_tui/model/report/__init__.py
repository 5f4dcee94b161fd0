"""What a run measured, as plain data that crosses from the engine to the front end: the report, each mode's kernels
and launches, library calls, boundaries, the time's parts, the machine and its load, the roofline."""
