"""The engine as a process: its request loop (``server``), the device it was started for, the warm-up, the torch
floor it refuses below, its crash stacks and the lifeline that ends it with its front end.

The top layer: it imports the preview and the stages to run each request, and nothing imports it but the entry
points (``engine.__main__``, ``engine.fork_server``).
"""
