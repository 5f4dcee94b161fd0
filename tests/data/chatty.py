"""A scenario that prints

Whatever it prints must stay off the protocol and out of the JSON.
"""

import sys

import torch

print("loading chatty", flush=True)
SIZE = 4096


def fn(a, b):
    print("inside fn {not json")
    sys.stdout.write('{"type": "done", "run_id": 1, "report": {}}\n')
    return (a + b).relu()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
