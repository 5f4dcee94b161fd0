"""A two-block GPT defined in another file (tiny_gpt.py), called by fn (a test's model; not a lesson)"""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tiny_gpt import WIDTH, TinyGPT

STEPS = 16
torch.manual_seed(0)
model = TinyGPT()


def fn(x):
    return model(x)


def inputs(size, device):
    return (torch.randn(max(size // (STEPS * WIDTH), 1), STEPS, WIDTH, device=device),)
