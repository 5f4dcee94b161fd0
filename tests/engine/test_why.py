"""Why these kernels: attribution to eager ops and lines, generated code, bandwidth, reports and traces."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import measure
from support.locations import DATA

from kernel_tui.engine.counting.attribution import ops_from_name
from kernel_tui.transport.client import EngineClient

FN_LINE = 12  # `return (a + b).relu()` in tests/data/add_relu.py


@pytest.mark.parametrize(
    ("name", "ops"),
    [
        ("cpp_fused_add_relu_0", ("aten::add", "aten::relu")),
        ("triton_poi_fused_add_relu_0", ("aten::add", "aten::relu")),
        ("cpp_fused__softmax_1", ("aten::_softmax",)),
        ("triton_red_fused_native_layer_norm_0", ("aten::native_layer_norm",)),
        ("aten::mm", ()),
    ],
)
def test_fused_names_are_read_against_the_eager_ops(name: str, ops: tuple[str, ...]) -> None:
    candidates = ["aten::relu", "aten::add", "aten::_softmax", "aten::native_layer_norm", "aten::mul"]
    assert ops_from_name(name, candidates) == ops


def test_each_compiled_kernel_names_the_eager_ops_and_lines_it_replaced(engine: EngineClient) -> None:
    report = measure(engine, DATA / "add_relu.py")
    assert report.eager is not None
    add, relu = report.eager.kernels
    assert report.compiled is not None
    (fused,) = report.compiled.kernels
    assert (add.aten_ops, add.lines) == (("aten::add",), (FN_LINE,))
    assert (relu.aten_ops, relu.lines) == (("aten::relu",), (FN_LINE,))
    assert set(fused.aten_ops) == {"aten::add", "aten::relu"} and fused.lines == (FN_LINE,)
    assert add.fused_into == relu.fused_into == ("cpp_fused_add_relu_0",)
    assert fused.code is not None
    assert "in_ptr0" in fused.code and "out_ptr0" in fused.code
    assert add.code is None


def test_bandwidth_is_bytes_over_time_against_the_measured_ceiling(engine: EngineClient) -> None:
    report = measure(engine, DATA / "add_relu.py")
    assert report.bandwidth_ceiling_gbs is not None
    assert report.bandwidth_ceiling_gbs > 0
    assert report.eager is not None
    assert report.compiled is not None
    for kernel in report.eager.kernels + report.compiled.kernels:
        assert kernel.bytes_total is not None and kernel.time_us is not None and kernel.gbs is not None
        assert kernel.gbs == pytest.approx(kernel.bytes_total / kernel.time_us / 1e3)
        assert kernel.ceiling_pct == pytest.approx(100 * kernel.gbs / report.bandwidth_ceiling_gbs)


def test_sweep_points_carry_their_bytes_for_a_bandwidth_chart(engine: EngineClient) -> None:
    report = measure(engine, DATA / "add_relu.py", size=4096, sizes=[1024, 4096], sweep=True)
    assert [(p.eager_bytes, p.compiled_bytes) for p in report.sweep] == [
        (5 * 4 * 1024, 3 * 4 * 1024),
        (5 * 4 * 4096, 3 * 4 * 4096),
    ]


@pytest.mark.engine
def test_export_writes_a_lab_report_and_trace_writes_perfetto_files(tmp_path: Path) -> None:
    report_md, traces = tmp_path / "report.md", tmp_path / "traces"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "kernel_tui",
            "run",
            str(DATA / "add_relu.py"),
            "--device",
            "cpu",
            "--no-sweep",
            "--json",
            "--export",
            str(report_md),
            "--trace",
            str(traces),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    measured = json.loads(result.stdout)
    assert measured["compiled"]["kernels"][0]["aten_ops"] and measured["compiled"]["kernels"][0]["gbs"] > 0
    text = report_md.read_text()
    for expected in (
        "# kernel-tui lab report",
        "## Add, then ReLU",
        "#### Eager",
        "#### Compiled",
        "`cpp_fused_add_relu_0`",
        "launches 2 → 1",
        "✓ eager: claimed 2, measured 2",
    ):
        assert expected in text
    for mode, kernel in (("eager", "aten::add"), ("compiled", "cpp_fused_add_relu_0")):
        trace = json.loads((traces / f"add_relu.{mode}.json").read_text())
        assert any(kernel in event.get("name", "") for event in trace["traceEvents"])
