"""Leaves a multiprocessing fork server (a fresh interpreter that forks workers) and a worker running"""

import multiprocessing
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _pids import record

SIZE = 64

context = multiprocessing.get_context("forkserver")
worker = context.Process(target=time.sleep, args=(600,))
worker.start()
record("fork_runner", worker.pid)
from multiprocessing import forkserver  # noqa: E402

record("fork_runner", forkserver._forkserver._forkserver_pid)


def fn(a):
    return (a + 1).relu()


def inputs(size, device):
    return (torch.randn(size, device=device),)
