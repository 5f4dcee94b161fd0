"""A decoder block in the style of Llama, width 64, written for kernel-tui's tests: RMSNorm before attention and
the feed-forward, rotary position embeddings on queries and keys, causal attention, and a SwiGLU feed-forward."""

import torch
import torch.nn.functional as F
from torch import nn


def rotate(x, cos, sin):
    half = x.shape[-1] // 2
    turned = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + turned * sin


class LlamaBlock(nn.Module):
    def __init__(self, width=64, heads=4, hidden=128):
        super().__init__()
        self.heads = heads
        self.attention_norm = nn.RMSNorm(width)
        self.wq = nn.Linear(width, width, bias=False)
        self.wk = nn.Linear(width, width, bias=False)
        self.wv = nn.Linear(width, width, bias=False)
        self.wo = nn.Linear(width, width, bias=False)
        self.ffn_norm = nn.RMSNorm(width)
        self.w1 = nn.Linear(width, hidden, bias=False)
        self.w3 = nn.Linear(width, hidden, bias=False)
        self.w2 = nn.Linear(hidden, width, bias=False)

    def forward(self, x):
        batch, steps, width = x.shape
        head = width // self.heads
        frequencies = 10000 ** (torch.arange(0, head, 2, device=x.device) / head)
        angles = torch.arange(steps, device=x.device)[:, None] / frequencies
        angles = torch.cat((angles, angles), dim=-1)
        cos, sin = angles.cos(), angles.sin()
        h = self.attention_norm(x)
        q, k, v = (w(h).view(batch, steps, self.heads, head).transpose(1, 2) for w in (self.wq, self.wk, self.wv))
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        mixed = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.wo(mixed.transpose(1, 2).reshape(batch, steps, width))
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))
