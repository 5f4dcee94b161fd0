"""kernel-tui: which kernels your PyTorch code runs, eager and compiled, and what they move."""

__version__ = "0.1.0"

from kernel_tui.model.settings import with_torch_defaults

# Before any process of kernel-tui, front end or engine, starts a process or loads torch: every engine and fork
# server inherits the front end's environment, and each imports this package before torch.
with_torch_defaults()
