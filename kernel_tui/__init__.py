"""kernel-tui: which kernels your PyTorch code runs, eager and compiled, and what they move."""

__version__ = "0.1.0"
