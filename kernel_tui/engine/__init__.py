"""The measuring engine: the only part of kernel-tui that imports torch.

It runs in a child process of the CLI or the app (``python -m kernel_tui.engine``) and answers over
``kernel_tui.transport.protocol``.
"""
