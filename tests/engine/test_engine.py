"""The engine on real torch (CPU, Inductor's C++ kernels): counts, bytes, compile facts and the sweep."""

from __future__ import annotations

import os

import pytest
from conftest import WriteScenario, measure
from support.locations import DATA

from kernel_tui.engine.compiler.torch_settings import (
    DYNAMO_DISABLED,
    DYNAMO_DISABLED_BY_ENVIRONMENT,
    KERNEL_PROFILE_OFF,
    KERNEL_PROFILE_OFF_IN_FN,
    RECOMPILE_LIMIT_LOWERED,
)
from kernel_tui.engine.stages.timed_report import UNTIMED
from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.protocol import Done, StageStartedMessage, SweepPointMessage

MiB = 2**20


def test_add_relu_is_two_kernels_eager_and_one_fused_kernel_compiled(engine: EngineClient) -> None:
    report = measure(engine, DATA / "add_relu.py", timed=True)
    assert report.error is None
    assert report.device == "cpu" and report.torch_version and report.device_name
    assert report.size == 2**20
    eager, compiled = report.eager, report.compiled
    assert eager is not None
    assert [k.name for k in eager.kernels] == ["aten::add", "aten::relu"]
    assert eager.kernel_count == 2
    assert [(k.bytes_read, k.bytes_written) for k in eager.kernels] == [(8 * MiB, 4 * MiB), (4 * MiB, 4 * MiB)]
    assert eager.bytes_total == 20 * MiB and eager.transfers == 5
    assert compiled is not None
    assert compiled.kernel_count == 1
    (kernel,) = compiled.kernels
    assert kernel.short_name == "cpp_fused_add_relu_0"
    assert kernel.name.endswith("cpp_fused_add_relu_0")
    assert (kernel.bytes_read, kernel.bytes_written) == (8 * MiB, 4 * MiB)
    assert compiled.bytes_total == 12 * MiB and compiled.transfers == 3
    assert report.ideal_bytes == 12 * MiB and report.ideal_transfers == 3
    assert compiled.compile_s is not None and compiled.compile_s >= 0
    assert compiled.graph_breaks == 0 and compiled.recompiles == 0
    assert eager.time_us is not None and compiled.time_us is not None
    assert eager.time_us > 0 and compiled.time_us > 0
    # Both times come from one interleaved measurement, with the spread of its rounds' ratios.
    assert report.speedup_range is not None
    low, high = report.speedup_range
    assert 0 < low <= high and eager.time_iqr_us is not None and compiled.time_iqr_us is not None
    assert all(check.ok for check in report.expect.values()) and len(report.expect) == 5


def test_an_untimed_run_counts_what_a_timed_one_does_and_says_it_timed_nothing(engine: EngineClient) -> None:
    """``--no-time``: the same kernels, bytes and claims, the profiler's kernel times, no time per call, speedup
    or timing stage, and a note saying so."""
    stages = []
    report = None
    for message in engine.run(str(DATA / "add_relu.py"), sweep=True, timed=False, timeout=600):
        if isinstance(message, StageStartedMessage):
            stages.append(message.stage)
        elif isinstance(message, Done):
            report = message.report
    assert report is not None and report.error is None
    assert "timing" not in stages and "sweep" not in stages and "compile" in stages
    eager, compiled = report.eager, report.compiled
    assert eager is not None and compiled is not None
    assert [k.short_name for k in compiled.kernels] == ["cpp_fused_add_relu_0"] and eager.kernel_count == 2
    assert eager.time_us is None and compiled.time_us is None
    assert report.speedup_range is None and report.speedup_median is None
    assert all(k.time_us is not None and k.time_us > 0 for k in (*eager.kernels, *compiled.kernels))
    assert compiled.compile_s is not None and compiled.compile_s > 0
    assert report.sweep == () and UNTIMED in report.notes
    assert all(check.ok for check in report.expect.values()) and len(report.expect) == 5


def test_a_scenario_that_turns_off_what_the_engine_sees_kernels_with_is_measured_with_it_on_and_told(
    engine: EngineClient, write_scenario: WriteScenario
) -> None:
    """Inductor's C++ kernels are invisible to the profiler without ``enable_kernel_profile``: a scenario that
    turned it off (and lowered dynamo's recompile limit, which the engine's own compiles of ``fn`` count against)
    was measured as 0 compiled kernels, with no error and no note; one that disabled dynamo, as eager's two."""
    path = write_scenario(
        "import torch\nimport torch._dynamo\nimport torch._inductor.config\n\n"
        "torch._inductor.config.cpp.enable_kernel_profile = False\ntorch._dynamo.config.recompile_limit = 1\n"
        "torch._dynamo.config.disable = True\n\n\n"
        "def fn(a, b):\n    return (a + b).relu()\n\n\n"
        "def inputs(size, device):\n    return torch.randn(size, device=device), torch.randn(size, device=device)\n"
    )
    report = measure(engine, path)
    assert report.error is None
    assert report.compiled is not None and [k.short_name for k in report.compiled.kernels] == ["cpp_fused_add_relu_0"]
    assert KERNEL_PROFILE_OFF in report.notes and DYNAMO_DISABLED in report.notes, report.notes
    assert RECOMPILE_LIMIT_LOWERED in report.notes, report.notes


def test_a_fn_that_turns_the_kernel_profile_off_as_it_runs_is_told_not_shown_as_no_kernels(
    engine: EngineClient, write_scenario: WriteScenario
) -> None:
    """Put back before the compile, the switch can be turned off again by ``fn``'s own call, before the graph after
    it is compiled: the compiled side then has no kernel the profiler sees, which a note must say, rather than the
    note that it was measured with the switch on standing alone."""
    path = write_scenario(
        "import torch\nimport torch._inductor.config as inductor_config\n\n\n"
        "def fn(a):\n    inductor_config.cpp.enable_kernel_profile = False\n    return a.sin().cos()\n\n\n"
        "def inputs(size, device):\n    return (torch.randn(size, device=device),)\n"
    )
    report = measure(engine, path)
    assert report.error is None and report.compiled is not None
    assert report.compiled.kernel_count == 0
    assert KERNEL_PROFILE_OFF_IN_FN in report.compiled.notes, report.compiled.notes


def test_a_scenario_that_lowers_the_recompile_limit_is_swept_compiled_and_told(
    engine: EngineClient, write_scenario: WriteScenario
) -> None:
    """``recompile_limit = 1`` in a scenario: the engine's second compile of ``fn`` hit it, dynamo left ``fn``
    eager for good, and the sweep's compiled line was eager's at every size but the profiled one, reported as 0
    graphs compiled and 0 recompiles (and torch's warning printed raw under ``kernel-tui run``)."""
    path = write_scenario(
        "import torch\nimport torch._dynamo\n\ntorch._dynamo.config.recompile_limit = 1\n"
        "torch._dynamo.config.accumulated_recompile_limit = 1\n\n\n"
        "def fn(a, b):\n    return (a + b).relu()\n\n\n"
        "def inputs(size, device):\n    return torch.randn(size, device=device), torch.randn(size, device=device)\n"
    )
    (done,) = [
        m for m in engine.run(str(path), size=4096, sizes=[1024, 4096, 16384], timeout=600) if isinstance(m, Done)
    ]
    report = done.report
    assert report.error is None and [p.size for p in report.sweep] == [1024, 4096, 16384]
    assert report.sweep_compiles is not None and report.sweep_compiles >= 1, report.sweep_strategy
    assert RECOMPILE_LIMIT_LOWERED in report.notes, report.notes


@pytest.mark.engine  # an engine of its own, for an environment of its own
def test_torch_compile_turned_off_by_the_environment_is_measured_on_and_told() -> None:
    """``TORCH_COMPILE_DISABLE=1`` sets dynamo's config at import and ``TORCHDYNAMO_DISABLE=1`` is read at each
    ``torch.compile``: a user with either in their shell saw eager's kernels in the compiled column, no note."""
    env = {**os.environ, "TORCH_COMPILE_DISABLE": "1", "TORCHDYNAMO_DISABLE": "1"}
    with EngineClient("cpu", env=env) as client:
        report = measure(client, DATA / "add_relu.py")
    assert report.error is None and report.compiled is not None
    assert [k.short_name for k in report.compiled.kernels] == ["cpp_fused_add_relu_0"]
    assert DYNAMO_DISABLED in report.notes and DYNAMO_DISABLED_BY_ENVIRONMENT in report.notes, report.notes


def test_a_views_only_function_has_no_eager_kernel(engine: EngineClient) -> None:
    report = measure(engine, DATA / "views_only.py")
    assert report.error is None
    assert report.eager is not None
    assert report.eager.kernels == () and report.eager.kernel_count == 0
    assert report.eager.bytes_total == 0  # zero kernels move zero bytes, which is known, not unknown
    assert report.expect["eager"].ok


def test_in_place_add_reads_both_and_writes_its_target(engine: EngineClient) -> None:
    report = measure(engine, DATA / "in_place.py")
    assert report.error is None
    assert report.eager is not None
    (kernel,) = report.eager.kernels
    assert kernel.name == "aten::add_"
    assert (kernel.bytes_read, kernel.bytes_written) == (2 * 4096 * 4, 4096 * 4)
    assert report.eager.transfers == 3


def test_bias_broadcast_is_read_once(engine: EngineClient) -> None:
    report = measure(engine, DATA / "bias.py")
    assert report.error is None
    assert report.eager is not None
    (kernel,) = report.eager.kernels
    assert kernel.bytes_read == (64 * 256 + 256) * 4
    assert kernel.bytes_written == 64 * 256 * 4
    assert report.compiled is not None
    (fused,) = report.compiled.kernels
    assert (fused.bytes_read, fused.bytes_written) == (kernel.bytes_read, kernel.bytes_written)


def test_graph_break_is_counted_with_its_reason(engine: EngineClient) -> None:
    report = measure(engine, DATA / "graph_break.py")
    assert report.error is None
    assert report.compiled is not None
    assert report.compiled.graph_breaks == 1
    (reason,) = report.compiled.graph_break_reasons
    assert "graph_break.py:14" in reason
    assert report.compiled.kernel_count == 2  # one kernel in each graph
    assert report.expect["graph_breaks"].ok


def test_a_wrong_claim_is_reported_as_such(engine: EngineClient) -> None:
    report = measure(engine, DATA / "add_relu_wrong_claim.py")
    assert report.error is None
    assert report.expect["eager"].ok
    assert not report.expect["compiled"].ok and report.expect["compiled"].measured == 1
    assert not report.ok


def test_sweep_streams_each_point_before_the_report(engine: EngineClient) -> None:
    messages = list(engine.run(str(DATA / "add_relu.py"), size=4096, sizes=[1024, 4096, 16384], timeout=600))
    types = [type(m) for m in messages]
    points = [m.point for m in messages if isinstance(m, SweepPointMessage)]
    assert [p.size for p in points] == [1024, 4096, 16384]
    assert types.index(SweepPointMessage) < types.index(Done)
    assert all(
        p.eager_us is not None and p.eager_us > 0 and p.compiled_us is not None and p.compiled_us > 0 for p in points
    )
    done = messages[-1]
    assert isinstance(done, Done)
    report = done.report
    assert [p.size for p in report.sweep] == [1024, 4096, 16384]
    assert report.sweep_compiles is not None
    assert report.sweep_compiles >= 1  # the dynamic recompile for new sizes, never a silent fallback
    assert report.sweep_strategy is not None
    assert "graph(s) compiled" in report.sweep_strategy


@pytest.mark.parametrize(
    ("source", "stage", "line", "message"),
    [
        ("def fn(a):\n    return a +\n", "load", 2, "syntax"),
        ("import torch\ndef inputs(size, device):\n    return (torch.ones(size),)\n", "load", None, "fn()"),
        (
            "import torch\ndef fn(a):\n    return a\ndef inputs(size, device):\n    return [1, 2]\n",
            "inputs",
            4,
            "not a tensor",
        ),
        (
            "import torch\ndef fn(a):\n    raise ValueError('boom')\ndef inputs(size, device):\n"
            "    return (torch.ones(size),)\n",
            "eager",
            3,
            "boom",
        ),
    ],
)
def test_bad_files_give_one_line_errors_with_file_line_and_stage(
    engine: EngineClient, write_scenario: WriteScenario, source: str, stage: str, line: int | None, message: str
) -> None:
    path = write_scenario(source)
    report = measure(engine, path)
    assert report.error is not None
    assert (report.error.stage, report.error.line) == (stage, line)
    assert message in report.error.message
    assert report.error.file == str(path)
    assert str(path) in report.error.one_line() and stage in report.error.one_line()
