"""OpenMP threads that spin while they wait, on a busy machine (issue 57): busy/quiet, with and without PASSIVE.

Two timing processes, one with ``OMP_WAIT_POLICY`` unset (OpenMP's default: a thread that finishes its share spins
for a while before it sleeps) and one with ``OMP_WAIT_POLICY=PASSIVE`` (it sleeps at once), each holding a
nanoGPT-like block (layer norm, causal self-attention, layer norm, a 4x GELU MLP) eager and compiled. The parent
asks both for a time in turn, quiet, then with busy loops on every core, for several rounds: each round's busy and
quiet times come minutes apart at most, and both settings meet the same load. It prints the median time of each
(setting, mode, machine) and the ratio busy/quiet of each setting, which is how far a busy machine moves a time.

Run: ``.venv/bin/python bench/omp_wait.py`` (``--rounds 3 --loops 4``). Each child imports torch and compiles the
block once (seconds with a warm Inductor cache); ``TORCHINDUCTOR_CACHE_DIR`` is the repository's, as the tests'.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHILD = r"""
import sys, torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.benchmark as benchmark

class Block(nn.Module):
    def __init__(self, width=128, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.up, self.down = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, c)
        x = x + self.proj(y)
        return x + self.down(F.gelu(self.up(self.ln2(x))))

torch.manual_seed(0)
block, x = Block().eval(), torch.randn(8, 64, 128)
calls = {"eager": block, "compiled": torch.compile(block)}
with torch.no_grad():
    for call in calls.values():
        for _ in range(3):
            call(x)
print("ready", flush=True)
for line in sys.stdin:
    mode = line.strip()
    timer = benchmark.Timer("call(x)", globals={"call": calls[mode], "x": x}, num_threads=torch.get_num_threads())
    with torch.no_grad():
        print(timer.blocked_autorange(min_run_time=float(sys.argv[1])).median * 1e6, flush=True)
"""
BUSY_LOOP = "while True:\n    pass\n"
SETTINGS = {"unset": None, "PASSIVE": "PASSIVE"}
MODES = ("eager", "compiled")


def child(policy: str | None, seconds: float) -> subprocess.Popen[str]:
    env = {key: value for key, value in os.environ.items() if key != "OMP_WAIT_POLICY"}
    env.setdefault("TORCHINDUCTOR_CACHE_DIR", str(REPO / ".cache" / "inductor"))
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(seconds)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    )
    assert process.stdout is not None
    if process.stdout.readline().strip() != "ready":
        raise RuntimeError(f"the timing process for OMP_WAIT_POLICY={policy} did not start")
    return process


def ask(process: subprocess.Popen[str], mode: str) -> float:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(f"{mode}\n")
    process.stdin.flush()
    return float(process.stdout.readline())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--loops", type=int, default=4, help="busy loops while busy (4: two per core on two cores)")
    parser.add_argument("--seconds", type=float, default=1.0, help="timing per ask")
    args = parser.parse_args()
    children = {name: child(policy, args.seconds) for name, policy in SETTINGS.items()}
    times: dict[tuple[str, str, str], list[float]] = {}
    try:
        for _ in range(args.rounds):
            for machine in ("quiet", "busy"):
                loops = [
                    subprocess.Popen([sys.executable, "-c", BUSY_LOOP])
                    for _ in range(args.loops if machine == "busy" else 0)
                ]
                try:
                    for name, process in children.items():
                        for mode in MODES:
                            times.setdefault((name, mode, machine), []).append(ask(process, mode))
                finally:
                    for loop in loops:
                        loop.kill()
                        loop.wait()
    finally:
        for process in children.values():
            process.kill()
            process.wait()
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} CPUs, load average {load:.1f} at the end; {args.rounds} rounds, {args.loops} busy loops")
    print("| OMP_WAIT_POLICY | mode | quiet (median) | busy (median) | busy/quiet |")
    print("| --- | --- | --- | --- | --- |")
    for name in SETTINGS:
        for mode in MODES:
            quiet = statistics.median(times[(name, mode, "quiet")])
            busy = statistics.median(times[(name, mode, "busy")])
            print(f"| {name} | {mode} | {quiet:,.0f} µs | {busy:,.0f} µs | {busy / quiet:.2f} |")


if __name__ == "__main__":
    main()
