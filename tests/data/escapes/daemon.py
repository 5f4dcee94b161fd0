"""Leaves a daemon running: forked twice, in a session of its own"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _pids import record

SIZE = 64

told, tell = os.pipe()
if os.fork() == 0:
    os.setsid()
    grandchild = os.fork()
    if grandchild == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", "daemon-escape"])
    os.write(tell, str(grandchild).encode())
    os._exit(0)
os.close(tell)
with os.fdopen(told) as reply:
    record("daemon", int(reply.read()))


def fn(a):
    return (a + 1).relu()


def inputs(size, device):
    return (torch.randn(size, device=device),)
