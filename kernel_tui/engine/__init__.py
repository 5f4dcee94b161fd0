"""The measuring engine: the only part of kernel-tui that imports torch.

It runs in a child process of the CLI or the app (``python -m kernel_tui.engine``, or forked from
``python -m kernel_tui.engine.fork_server``) and answers over ``kernel_tui.transport.protocol``. Its two entry
points sit here; below them, one folder per layer, each importing only the ones below it (the contract
"The engine's layers" in ``pyproject.toml``): ``serve`` > ``preview`` > ``stages`` > ``compiler`` > ``counting``.
"""
