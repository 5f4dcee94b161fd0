"""A training step that registers global module forward and backward hooks, and leaves them."""

import torch
from torch.nn.modules import module

TRAIN = True
layer = torch.nn.Linear(16, 16)
module.register_module_forward_hook(lambda mod, args, out: out * 1)
module.register_module_full_backward_hook(lambda mod, grad_in, grad_out: None)


def fn(x):
    return layer(x).sum()


def inputs(size, device):
    return (torch.randn(8, 16, device=device, requires_grad=True),)
