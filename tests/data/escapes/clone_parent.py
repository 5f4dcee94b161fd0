"""Starts a sleeper with clone(CLONE_PARENT), in a session of its own: the engine's sibling, not its child"""

import ctypes
import os
import platform
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _pids import record

SIZE = 64
CLONE_PARENT = 0x00008000
SIGCHLD = 17
SYS_CLONE = {"x86_64": 56, "aarch64": 220}[platform.machine()]

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
pid = libc.syscall(SYS_CLONE, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0)
if pid == 0:
    # A raw clone copies this process as os.fork would, without Python's at-fork handlers: exec at once.
    os.setsid()
    os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", "clone-parent-escape"])
record("clone_parent", pid)


def fn(a):
    return (a + 1).relu()


def inputs(size, device):
    return (torch.randn(size, device=device),)
