"""A small transformer, written out op by op

Fourteen pre-norm blocks of attention and an MLP: over 300 kernel launches eagerly, for measuring how the
engine and the app cope with long kernel tables.
"""

import torch
import torch.nn.functional as F

SIZE = 64 * 128
LAYERS = 14
WIDTH = 128
HEADS = 4


def block(x, w_qkv, w_out, w_up, w_down):
    tokens = x.shape[0]
    h = F.layer_norm(x, (WIDTH,))
    q, k, v = (h @ w_qkv).split(WIDTH, dim=-1)
    q = q.view(tokens, HEADS, -1).transpose(0, 1)
    k = k.view(tokens, HEADS, -1).transpose(0, 1)
    v = v.view(tokens, HEADS, -1).transpose(0, 1)
    scores = (q @ k.transpose(-1, -2)) * (q.shape[-1] ** -0.5)
    mask = torch.ones(tokens, tokens, device=x.device).tril() == 0
    scores = scores.masked_fill(mask, float("-inf"))
    weights = scores.exp() / scores.exp().sum(-1, keepdim=True)
    attended = (weights @ v).transpose(0, 1).reshape(tokens, WIDTH)
    x = x + attended @ w_out
    h = F.layer_norm(x, (WIDTH,))
    up = h @ w_up
    x = x + (up * torch.sigmoid(1.702 * up)) @ w_down
    return x * 1.0 + 0.0


def fn(x, *weights):
    for layer in range(LAYERS):
        x = block(x, *weights[4 * layer : 4 * layer + 4])
    return x


def inputs(size, device):
    tokens = max(size // WIDTH, 1)
    weights = []
    for _ in range(LAYERS):
        weights += [
            torch.randn(WIDTH, 3 * WIDTH, device=device) * 0.05,
            torch.randn(WIDTH, WIDTH, device=device) * 0.05,
            torch.randn(WIDTH, 4 * WIDTH, device=device) * 0.05,
            torch.randn(4 * WIDTH, WIDTH, device=device) * 0.05,
        ]
    return (torch.randn(tokens, WIDTH, device=device), *weights)
