"""``python -m kernel_tui`` is ``kernel-tui``."""

from kernel_tui.commands.cli import main

raise SystemExit(main())
