"""Fidelity: the sweep's medians against an independent reference at three sizes.

The reference times the same functions in a separate process with ``torch.utils.benchmark`` and the same
thread count (on CUDA, ``triton.testing.do_bench``'s median). Target: every ratio within 0.9 to 1.1.
"""

from __future__ import annotations

import json
import subprocess
import sys

from common import REPO, run_json

SIZES = [2**14, 2**18, 2**22]
SCENARIO = REPO / "tests" / "data" / "add_relu.py"
REFERENCE = r"""
import json, sys, torch
import torch.utils.benchmark as benchmark
torch.set_grad_enabled(False)
import torch._inductor.config as config
config.cpp.enable_kernel_profile = True  # the engine compiles with it; same cache key, same kernels
sizes = json.loads(sys.argv[1])
device = "cuda" if torch.cuda.is_available() else "cpu"
def fn(a, b):
    return (a + b).relu()
compiled = torch.compile(fn)
out = {}
for size in sizes:
    a, b = torch.randn(size, device=device), torch.randn(size, device=device)
    for name, f in (("eager", fn), ("compiled", compiled)):
        f(a, b)
        if device == "cuda":
            from triton.testing import do_bench
            median_us = do_bench(lambda: f(a, b), return_mode="median") * 1e3
        else:
            timer = benchmark.Timer("f(a, b)", globals={"f": f, "a": a, "b": b}, num_threads=torch.get_num_threads())
            median_us = timer.blocked_autorange(min_run_time=0.5).median * 1e6
        out[f"{name}:{size}"] = median_us
print(json.dumps(out))
"""


def measure() -> dict[str, object]:
    (report,) = run_json(str(SCENARIO), "--size", str(SIZES[0]), "--sizes", ",".join(map(str, SIZES)))
    reference = json.loads(
        subprocess.run([sys.executable, "-c", REFERENCE, json.dumps(SIZES)], capture_output=True, text=True,
                       check=True, cwd=REPO).stdout.splitlines()[-1]
    )
    ratios = {}
    for point in report["sweep"]:
        for mode in ("eager", "compiled"):
            label = f"{mode} 2^{point['size'].bit_length() - 1}"
            ratios[label] = point[f"{mode}_us"] / reference[f"{mode}:{point['size']}"]
    worst = max(ratios.values(), key=lambda r: abs(r - 1))
    return {
        "name": "fidelity: sweep median / independent torch.utils.benchmark median, add+relu",
        "value": ", ".join(f"{key} {ratio:.2f}" for key, ratio in ratios.items()),
        "ratio": worst,
        "target": "each within 0.9–1.1",
        "met": all(0.9 <= r <= 1.1 for r in ratios.values()),
        "cause": "run-to-run variance on this 2-core shared VM: both sides are torch.utils.benchmark medians "
                 "with the same thread count, measured in different processes seconds apart, and Inductor's "
                 "OpenMP kernels lose whole scheduler slices whenever another process takes a core. Runs of "
                 "this bench in the same session gave worst ratios from 0.65 to 79 depending on what else was "
                 "running; a quiet machine is needed to tell a bias of the method from the machine's noise.",
    }


if __name__ == "__main__":
    print(measure())
