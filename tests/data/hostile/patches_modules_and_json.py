"""Patches nn.Linear.forward, nn.ReLU.forward and json.dumps, and adds an audit hook: none of it can be undone."""

import json
import sys

import torch

_linear, _relu, _dumps = torch.nn.Linear.forward, torch.nn.ReLU.forward, json.dumps
torch.nn.Linear.forward = lambda self, x: _linear(self, x) * 2
torch.nn.ReLU.forward = lambda self, x: _relu(self, x) + 0
json.dumps = lambda *args, **kwargs: _dumps(*args, **kwargs).replace("relu", "RELU")
sys.addaudithook(lambda event, args: None)


def fn(a):
    return a + 1


def inputs(size, device):
    return (torch.ones(size, device=device),)
