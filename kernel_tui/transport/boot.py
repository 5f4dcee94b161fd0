"""How a process of kernel-tui's is started: the command line that boots a module of this checkout in a fresh
interpreter, for the engine, its fork server and the CLI alike. Facts both processes agree on, apart from the front
end's process client, so that the engine side can start its own (the fork server's exec'd engines) without it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

# ``python -m`` and ``python -c`` both put the current folder first on the import path, where a learner's
# random.py or copy.py would be imported by torch in place of the standard library's (``-P`` would do, but
# only from Python 3.11). The boot code removes it; kernel_tui is found where this front end found it,
# after everything else, and PYTHONPATH is honoured as usual.
PYTHON_BOOT = """\
import sys
if sys.path and sys.path[0] == "":
    del sys.path[0]
sys.path.append({root!r})
import runpy
runpy.run_module({module!r}, run_name="__main__", alter_sys=True)
"""
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
"""The folder that holds this ``kernel_tui``: every process booted here imports the same checkout."""


def python_command(module: str, *args: str) -> list[str]:
    """``python -m module args``, without the current folder on the import path."""
    return [sys.executable, "-c", PYTHON_BOOT.format(root=PACKAGE_ROOT, module=module), *args]


def engine_command(device: str) -> list[str]:
    return python_command("kernel_tui.engine", "--device", device)


IMPORT_ENV_PREFIXES = (
    "TORCH",
    "PYTORCH",
    "TRITON",
    "CUDA",
    "NVIDIA",
    "HIP",
    "ROCM",
    "OMP_",
    "GOMP",
    "KMP_",
    "MKL",
    "OPENBLAS",
    "LD_",
    "PYTHON",
    "KINETO",
)
"""Variables read while torch is imported, or by Python at start: an engine under other values is exec'd."""


def import_environment(env: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((key, value) for key, value in env.items() if key.startswith(IMPORT_ENV_PREFIXES)))


def server_identity(env: dict[str, str]) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """What an engine forked from a fork server inherits: its interpreter, the kernel-tui checkout it imports, and
    the environment torch was imported under. A front end forks only from a server whose identity is its own."""
    return sys.executable, PACKAGE_ROOT, import_environment(env)


WARM_UP_ENV = "KERNEL_TUI_WARM_UP"


def warm_up_wanted(env: Mapping[str, str] = os.environ) -> bool:
    """Whether engines started under ``env`` warm the compiler after their hello (``--warm-up``): the explorer's
    first engine and every front end's spares do, unless ``KERNEL_TUI_WARM_UP=0``."""
    return env.get(WARM_UP_ENV, "1") != "0"
