"""Tensors made from Python data inside fn on the input's device: the empty one Hugging Face's cache makes on its
first update (every causal LM's forward), and the index list of nanoGPT's x[:, [-1], :]."""

import torch


def fn(x):
    empty = torch.tensor([], dtype=x.dtype, device=x.device)
    rows = torch.cat([empty, x.relu()]).view(-1, 16)
    return rows[:, [-1]]


def inputs(size, device):
    return (torch.randn(size, device=device),)
