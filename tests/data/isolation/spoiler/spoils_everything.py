"""Changes everything a scenario can change in the engine it runs in

Each line below once leaked into every scenario run after it in the same engine.
"""

import os
import random
import sys
import warnings

import helper  # this folder's helper.py, not the probe's
import torch
import torch._dynamo.config
import torch._inductor.config

SIZE = 1024
assert helper.WHO == "spoiler", "a module another scenario imported stood in for this folder's own"

torch.set_num_threads(1)
torch._dynamo.config.capture_scalar_outputs = True
torch._inductor.config.cpp.enable_kernel_profile = False
torch.set_default_dtype(torch.float64)
torch.manual_seed(1234)
random.seed(1234)
os.chdir("/")
sys.path.insert(0, "/nonexistent-kernel-tui-folder")
sys.stdin.close()
sys.stderr = open(os.devnull, "w")
os.environ["KERNEL_TUI_SPOILED"] = helper.WHO
warnings.simplefilter("error", UserWarning)


def fn(a):
    return a + 1


def inputs(size, device):
    return (torch.ones(size, device=device),)
