"""Sweep cost: compiles per sweep, and the sweep's wall time against the timed work inside it.

The rest of the wall time is warm-up calls, input creation, the recompile and byte counting. Baseline: the
sum of the timed calls themselves. Reported, not targeted, apart from compiles: a default sweep must
compile at most twice (static, then one dynamic graph), never once per size.
"""

from __future__ import annotations

from common import REPO, run_json

SCENARIO = REPO / "tests" / "data" / "add_relu.py"


def measure() -> dict[str, object]:
    (report,) = run_json(str(SCENARIO), "--size", "4096")
    points = len(report["sweep"])
    ratio = report["sweep_wall_s"] / report["sweep_timed_s"]
    return {
        "name": f"sweep cost: add+relu, {points} sizes (default sweep)",
        "value": f"{report['sweep_compiles']} compile(s); wall {report['sweep_wall_s']:.2f} s vs "
        f"{report['sweep_timed_s']:.2f} s timed",
        "ratio": ratio,
        "target": "compiles <= 2",
        "met": report["sweep_compiles"] <= 2,
    }


if __name__ == "__main__":
    print(measure())
