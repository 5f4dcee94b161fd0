"""A two-block GPT in the style of nanoGPT, width 64, written for kernel-tui's tests (not a lesson): pre-norm
blocks of causal self-attention and a SwiGLU feed-forward, then a final norm. Imported by ``gpt_scenario.py``, so
that its kernels' lines point into this file."""

import torch.nn.functional as F
from torch import nn

WIDTH = 64
HEADS = 4


class SelfAttention(nn.Module):
    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        batch, steps, width = x.shape
        q, k, v = self.qkv(x).split(width, dim=2)
        q, k, v = (t.view(batch, steps, self.heads, width // self.heads).transpose(1, 2) for t in (q, k, v))
        mixed = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(mixed.transpose(1, 2).reshape(batch, steps, width))


class SwiGLU(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.gate = nn.Linear(width, 2 * width, bias=False)
        self.up = nn.Linear(width, 2 * width, bias=False)
        self.down = nn.Linear(2 * width, width, bias=False)

    def forward(self, x):
        gated = F.silu(self.gate(x)) * self.up(x)
        return self.down(gated)


class Block(nn.Module):
    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(width)
        self.attn = SelfAttention(width, heads)
        self.ln_2 = nn.LayerNorm(width)
        self.mlp = SwiGLU(width)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class TinyGPT(nn.Module):
    def __init__(self, width: int = WIDTH, heads: int = HEADS, blocks: int = 2) -> None:
        super().__init__()
        self.h = nn.ModuleList(Block(width, heads) for _ in range(blocks))
        self.ln_f = nn.LayerNorm(width)

    def forward(self, x):
        for block in self.h:
            x = block(x)
        return self.ln_f(x)
