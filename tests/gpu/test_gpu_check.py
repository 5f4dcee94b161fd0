"""``make gpu-check``: its table, and that it runs where the GPU machines stand (no Textual, no plotext)."""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import WriteScenario, within
from support.locations import REPO
from support.processes import is_running, wait_for

from kernel_tui.model.report.kernel import Kernel
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import ScenarioError, ScenarioReport
from tools.gpu_check import check as gpu_check
from tools.gpu_check.bandwidth import bandwidth_cell, largest_from_memory
from tools.gpu_check.check import OUTPUT, Row, table
from tools.gpu_check.course import measure_course
from tools.gpu_check.findings import audit_trace, compare_kernels, compiled_cell, eager_cell
from tools.gpu_check.logs import LessonLogs
from tools.gpu_check.preview import LivePreview, live_preview

H200 = REPO / "tests" / "data" / "gpu_check"
WARM = ("--inductor-cache", os.environ["TORCHINDUCTOR_CACHE_DIR"]) if os.environ.get("TORCHINDUCTOR_CACHE_DIR") else ()
"""The suite's own Inductor cache where it has one: a cold compile here costs minutes, and no claim is on time."""
BLOCK_UI_LIBRARIES = """
import importlib.abc, sys
class _NotOnTheGpuMachine(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("textual", "textual_plotext", "plotext", "textual_serve"):
            raise ImportError(name + " is not installed on the GPU machines")
sys.meta_path.insert(0, _NotOnTheGpuMachine())
"""


def report(*names: str, device: str = "cuda") -> ScenarioReport:
    kernels = tuple(Kernel(name, name, 1, 1.0) for name in names)
    compiled = ModeResult(len(kernels), kernels, None, 1.0)
    return ScenarioReport("/x/09.py", "t", device, "H200", "2.11", 1024, eager=compiled, compiled=compiled)


def test_same_kernels_and_how_they_differ() -> None:
    real = report("triton_red_fused_mul_sum_0", "triton_per_fused_mul_sum_1")
    assert compare_kernels(real, report("triton_red_fused_mul_sum_0", "triton_per_fused_mul_sum_1")).startswith("same")
    different = compare_kernels(real, report("triton_red_fused_mul_sum_0", "aten::mm"))
    assert "GPU only: triton_per_fused_mul_sum_1" in different and "library launches: preview 1, GPU 0" in different
    assert compare_kernels(real, None) == "no preview recorded"


def test_the_table_is_markdown_with_a_row_per_scenario() -> None:
    text = table([Row("a.py", "5/5", "same", "x | y", "same: preview 2, GPU 2", "all 10 launches recorded")])
    assert text.splitlines()[2] == "| a.py | 5/5 | same | same: preview 2, GPU 2 | all 10 launches recorded | x \\| y |"


@pytest.mark.engine
def test_runs_without_textual_or_plotext(tmp_path: Path) -> None:
    """The H200 machines have torch and rich only: the check, the CLI and the engine must not need the UI."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(BLOCK_UI_LIBRARIES)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(REPO)])}
    out = tmp_path / "out"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.gpu_check",
            str(REPO / "tests" / "data" / "add_relu.py"),
            "--device",
            "cpu",
            "--out",
            str(out),
            *WARM,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "| add_relu.py | 5/5 |" in result.stdout
    assert sorted(path.name for path in out.iterdir()) == sorted(OUTPUT)
    assert (out / "traces.tar.gz").stat().st_size > 0
    log = (out / "stderr" / "add_relu.log").read_text()
    assert "=== the GPU's engine (--device cpu, cold)" in log and "# ended: measured" in log
    assert "=== the live preview's engine" in log and "previewed live" in result.stdout
    summary = json.loads((out / "gpu-check.json").read_text())
    assert summary["scenarios"]["add_relu.py"]["measured"]
    assert summary["cold_inductor_cache"] is not bool(WARM)
    assert re.search(
        r"course: 1/1 scenarios measured in \d+ s (from an empty|with a given) Inductor cache: within the",
        result.stdout,
    )
    assert "eager: no CUDA launch in the profile" in result.stdout


@pytest.mark.engine
def test_a_failed_claim_still_leaves_every_file_and_no_more(tmp_path: Path, write_scenario: WriteScenario) -> None:
    """A run on a borrowed GPU brings back what is under its output folder: a handful of files, written even when
    a claim fails (the exit status says so), never a folder of traces."""
    source = (REPO / "tests" / "data" / "add_relu.py").read_text()
    wrong = write_scenario(re.sub(r'"compiled": 1', '"compiled": 7', source, count=1), "wrong_claim.py")
    assert wrong.read_text() != source
    out = tmp_path / "out"
    command = [
        sys.executable,
        "-m",
        "tools.gpu_check",
        str(wrong),
        "--device",
        "cpu",
        "--out",
        str(out),
        *WARM,
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=REPO)
    assert result.returncode == 1, result.stderr[-3000:]
    assert "failed: compiled" in result.stdout
    files = sorted(path.name for path in out.iterdir())
    assert files == sorted(OUTPUT) and len(files) <= 8
    assert all((out / name).stat().st_size > 0 for name in files)
    assert [path.name for path in (out / "stderr").iterdir()] == ["wrong_claim.log"]


def test_version_drift_is_told_from_a_preview_error() -> None:
    real = report("triton_per_fused__softmax_exp_prepare_softmax_online_sub_0")
    live = report("triton_per_fused__softmax_exp_prepare_softmax_online_sub_0", device="cuda-preview")
    recorded = report("triton_per_fused__softmax_prepare_softmax_online_0", device="cuda-preview")
    drift = compiled_cell(real, live, recorded)
    assert drift.startswith("same") and "version drift: the recording (torch 2.11)" in drift
    failed = ScenarioReport(
        "/x/09.py", "t", "cuda-preview", "H200", "2.11", 1024, error=ScenarioError("compile", "boom", None, None, "")
    )
    cell = compiled_cell(real, failed, recorded)
    assert cell.startswith("preview error on this torch: boom; against the recording") and "different" in cell
    missing = compiled_cell(real, None, recorded, "the live preview's 120 s ran out after 3 of 29 lessons")
    assert missing.startswith("no live preview: the live preview's 120 s ran out after 3 of 29 lessons; against")


def test_the_eager_cell_names_what_the_gpu_ran() -> None:
    preview = report("aten::sum", device="cuda-preview")
    gpu = report("Memset (Device)", "reduce_kernel")
    assert eager_cell(gpu, preview) == "different: preview 1, GPU 2 (Memset (Device), reduce_kernel)"


def _as_engine_trace(source: Path, target: Path, step: str, drop: int = 0) -> Path:
    """A real GPU trace whose profiled steps carry the engine's range name; ``drop`` device records removed."""
    data = json.loads(gzip.decompress(source.read_bytes()))
    events = data["traceEvents"]
    for event in events:
        if event.get("cat") in ("user_annotation", "cpu_op") and re.search(step, event.get("name", "")):
            event["name"], event["cat"] = "kernel_tui::run", "user_annotation"
    device = [i for i, e in enumerate(events) if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    for index in sorted(device[-drop:] if drop else [], reverse=True):
        del events[index]
    target.write_text(json.dumps(data))
    return target


def test_the_device_records_of_real_traces_are_audited_against_their_launch_calls(tmp_path: Path) -> None:
    """B200: every one of 929 launches in the step has its device record. H100: 22 ``cudaMemsetAsync`` calls
    inside the step have none (the trace holds no memset activity at all): a GPU count there would miss them,
    which is what this column is for."""
    traces = REPO / "tests" / "data" / "cuda_traces"
    b200 = audit_trace(
        _as_engine_trace(traces / "tracelens_b200_vllm_compiled.json.gz", tmp_path / "b.json", "^execute_context_")
    )
    assert (b200.runs, b200.launch_calls, b200.lost) == (1, 929, 0)
    assert b200.text() == "all 929 launches recorded"
    h100 = audit_trace(
        _as_engine_trace(traces / "tracelens_h100_bert_small.json.gz", tmp_path / "h.json", r"^ProfilerStep#\d+$")
    )
    assert (h100.launch_calls, h100.lost) == (83, 22) and h100.text() == "22 of 83 launches without a device record"
    dropped = audit_trace(
        _as_engine_trace(
            traces / "tracelens_b200_vllm_compiled.json.gz", tmp_path / "d.json", "^execute_context_", drop=3
        )
    )
    assert dropped.lost == 3


def test_a_checkout_on_pythonpath_finds_the_course() -> None:
    """The first GPU run: ``make gpu-check`` runs from a checkout that is installed nowhere, and found no course
    (``kernel_tui.scenarios`` exists only once installed). ``-S``: no site-packages, so no editable install."""
    repo = REPO
    found = subprocess.run(
        [sys.executable, "-S", "-c", "from kernel_tui.model.scenario.course import course_dir; print(course_dir())"],
        cwd="/",
        env={"PYTHONPATH": str(repo)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == str(repo / "scenarios")


FAKE_ENGINE = """
import json, os, signal, sys, time
from kernel_tui.transport import protocol
from kernel_tui.model.report.report import ScenarioReport
plan = json.loads(sys.argv[1])
def send(message):
    sys.stdout.write(protocol.encode(message))
    sys.stdout.flush()
print(f"engine {os.getpid()} starting", file=sys.stderr, flush=True)
if plan.get("refuse"):
    print("kernel-tui engine: " + plan["refuse"], file=sys.stderr, flush=True)
    sys.exit(3)
send(protocol.Hello(pid=os.getpid(), device="cpu", device_name="stand-in", torch_version="2.11.0", threads=1))
for line in sys.stdin:
    request = protocol.decode(line)
    name = os.path.basename(request.path)
    what = plan.get(name, "ok")
    print(f"engine {os.getpid()} runs {name}", file=sys.stderr, flush=True)
    if what == "crash":
        print("Fatal Python error: Segmentation fault", file=sys.stderr)
        print(f'  File "{request.path}", line 9 in fn', file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGSEGV)
    if what == "hang":
        time.sleep(600)
    report = ScenarioReport(request.path, "t", "cpu", f"pid {os.getpid()}", "2.11.0", 1)
    send(protocol.Done(request.run_id, report))
"""
"""A stand-in engine: says hello (or refuses, as a torch that cannot preview does), then per request does what
its plan says for that file name: ``ok`` (a report naming its pid), ``crash`` (a fatal-error line, then SIGSEGV)
or ``hang``. Every line it writes on stderr names its pid."""


def fake_engine(tmp_path: Path, **plan: str) -> list[str]:
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE_ENGINE)
    return [sys.executable, str(script), json.dumps(plan)]


def lessons(tmp_path: Path, count: int) -> list[Path]:
    """``count`` lesson files (the add-and-ReLU scenario under other names): a dead engine's report reads its file."""
    source = (REPO / "tests" / "data" / "add_relu.py").read_text()
    paths = [tmp_path / f"{number:02d}_lesson.py" for number in range(1, count + 1)]
    for path in paths:
        path.write_text(source)
    return paths


def engine_pids(log: str) -> set[str]:
    return set(re.findall(r"^engine (\d+) ", log, flags=re.MULTILINE))


def test_each_lessons_engine_writes_its_whole_stderr_to_that_lessons_log(tmp_path: Path) -> None:
    """The H200 lost two engines to SIGSEGV and kept nothing they said. Each lesson's engine (the next one started,
    as the CLI's spare is, while the lesson before runs) writes to its own lesson's log, from its first line on;
    the crash's lines are in the crashed lesson's log only, with how the engine ended."""
    paths = lessons(tmp_path, 3)
    logs = LessonLogs(tmp_path / "out" / "stderr")
    command = fake_engine(tmp_path, **{"02_lesson.py": "crash"})
    measured = list(measure_course(paths, "cpu", tmp_path, time.monotonic() + 120, dict(os.environ), logs, command))
    assert [path.name for path, _ in measured] == ["01_lesson.py", "02_lesson.py", "03_lesson.py"]
    reports = {path.name: report for path, report in measured}
    assert reports["01_lesson.py"].error is None and reports["03_lesson.py"].error is None
    crashed = reports["02_lesson.py"].error
    assert crashed is not None and "SIGSEGV" in crashed.message
    texts = {path.name: logs.path(path).read_text() for path in paths}
    for name, text in texts.items():
        (pid,) = engine_pids(text)  # one engine per lesson, and every line of it here, its start-up's included
        assert f"# engine pid {pid}: stand-in" in text and f"engine {pid} starting" in text
        assert f"engine {pid} runs {name}" in text
    assert "Fatal Python error: Segmentation fault" in texts["02_lesson.py"]
    assert "# ended: the engine was killed by SIGSEGV" in texts["02_lesson.py"]
    assert all("Fatal Python error" not in texts[name] for name in ("01_lesson.py", "03_lesson.py"))
    assert "# ended: measured" in texts["03_lesson.py"]
    assert len({pid for text in texts.values() for pid in engine_pids(text)}) == 3


def test_the_course_stops_at_its_deadline_and_says_which_lessons_did_not_run(tmp_path: Path) -> None:
    paths = lessons(tmp_path, 3)
    logs = LessonLogs(tmp_path / "stderr")
    command = fake_engine(tmp_path, **{"02_lesson.py": "hang"})
    measured = dict(measure_course(paths, "cpu", tmp_path, time.monotonic() + 8, dict(os.environ), logs, command))
    assert [path.name for path in measured] == ["01_lesson.py", "02_lesson.py"]
    stopped = measured[paths[1]].error
    assert stopped is not None and "no result within" in stopped.message
    assert "not run: the course's time budget was spent" in logs.path(paths[2]).read_text()


def test_a_check_stopped_midway_keeps_what_was_measured_and_says_where_it_stopped(tmp_path: Path) -> None:
    """SIGTERM (a ``timeout`` on the GPU machine) reaches the check while lesson 02's engine runs: lesson 01's report
    is kept, 02's log says the check ended it, its engine is gone, and the table says why 02 and 03 have no row."""

    class Stop(Exception):
        pass

    def stop(signum: int, frame: object) -> None:
        raise Stop("SIGTERM")

    paths = lessons(tmp_path, 3)
    logs = LessonLogs(tmp_path / "stderr")
    command = fake_engine(tmp_path, **{"02_lesson.py": "hang"})
    measured: dict[Path, ScenarioReport] = {}
    previous = signal.signal(signal.SIGALRM, stop)
    try:
        signal.setitimer(signal.ITIMER_REAL, within(8))
        with pytest.raises(Stop):
            for path, measurement in measure_course(
                paths, "cpu", tmp_path, time.monotonic() + 300, {**os.environ}, logs, command
            ):
                measured[path] = measurement
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert list(measured) == paths[:1]
    log = logs.path(paths[1]).read_text()
    assert "# ended: the check stopped while its engine ran (Stop('SIGTERM'))" in log
    (pid,) = engine_pids(log)
    assert wait_for(lambda: not is_running(int(pid)), 10)
    rows, _ = gpu_check.findings(
        paths,
        {path.name: r for path, r in measured.items()},
        LivePreview(),
        {},
        tmp_path,
        logs,
        "the check was stopped by SIGTERM",
    )
    assert [row.claims for row in rows[1:]] == ["not run (the check was stopped by SIGTERM)"] * 2


def test_the_live_preview_runs_each_lesson_in_a_fresh_engine_on_its_own_budget(tmp_path: Path) -> None:
    """The H200's check left the preview 124 s of the course's: now it has a budget of its own, and each lesson is
    previewed in an engine of its own (one scenario per engine, as every front end runs them), the next started
    while the lesson before previews; each lesson's log gets its engine's lines."""
    paths = lessons(tmp_path, 4)
    logs = LessonLogs(tmp_path / "stderr")
    live = live_preview(paths, 90, dict(os.environ), logs, command=fake_engine(tmp_path))
    assert sorted(live.reports) == [path.name for path in paths] and not live.missing
    assert len({report.device_name for report in live.reports.values()}) == len(paths), "an engine per lesson"
    assert live.torch_version == "2.11.0"
    assert live.summary(len(paths)).startswith("4/4 lessons previewed live on torch 2.11.0 in ")
    texts = [logs.path(path).read_text() for path in paths]
    assert all(text.count("started: torch 2.11.0") == 1 for text in texts)
    assert all(f"runs {path.name}" in text for path, text in zip(paths, texts))


class _SlowReader:
    """Stands in for the stderr reader's filter: every line waits first, as a reader thread does on a busy box."""

    def match(self, line: str) -> None:
        time.sleep(0.3)


def test_a_lessons_last_line_read_late_is_still_that_lessons(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each engine's stderr is read by a thread of its own, which may lag behind the run's result: a line the
    engine wrote before its run ended belongs to that lesson even when it is read after (under load, a lesson's
    "runs" line went to the next lesson's log)."""
    monkeypatch.setattr("kernel_tui.transport.client.PROFILER_CHATTER", _SlowReader())
    paths = lessons(tmp_path, 2)
    logs = LessonLogs(tmp_path / "stderr")
    live = live_preview(paths, 90, dict(os.environ), logs, command=fake_engine(tmp_path))
    assert sorted(live.reports) == [path.name for path in paths]
    texts = [logs.path(path).read_text() for path in paths]
    assert [re.findall(r"runs (\S+)", text) for text in texts] == [[path.name] for path in paths]


def test_a_preview_engine_that_dies_on_a_lesson_is_named_there_and_the_next_lesson_starts_anew(tmp_path: Path) -> None:
    paths = lessons(tmp_path, 3)
    logs = LessonLogs(tmp_path / "stderr")
    live = live_preview(paths, 90, dict(os.environ), logs, command=fake_engine(tmp_path, **{"02_lesson.py": "crash"}))
    assert live.missing == {"02_lesson.py": "the preview engine died on this lesson: the engine was killed by SIGSEGV"}
    assert live.reports["01_lesson.py"].device_name != live.reports["03_lesson.py"].device_name
    assert "Fatal Python error" in logs.path(paths[1]).read_text()


def test_a_torch_that_cannot_preview_says_so_in_every_row(tmp_path: Path) -> None:
    """The H200's table said only "no preview on this torch": now each row says what the engine said."""
    paths = lessons(tmp_path, 2)
    logs = LessonLogs(tmp_path / "stderr")
    why = "--device cuda-preview cannot fake a GPU on this torch"
    live = live_preview(paths, 90, dict(os.environ), logs, command=fake_engine(tmp_path, refuse=why))
    assert not live.reports
    assert live.missing == {path.name: f"this torch cannot preview: {why}" for path in paths}
    real = report("triton_poi_fused_add_relu_0")
    cell = compiled_cell(real, None, real, live.why_not("01_lesson.py"))
    assert cell.startswith(f"no live preview: this torch cannot preview: {why}; against the recording")
    header = gpu_check.preview_line(live, len(paths), 90)
    assert header.endswith(f"no live preview on this torch: this torch cannot preview: {why}")


def test_a_preview_out_of_time_says_on_which_lesson_and_after_how_many(tmp_path: Path) -> None:
    paths = lessons(tmp_path, 3)
    logs = LessonLogs(tmp_path / "stderr")
    command = fake_engine(tmp_path, **{"02_lesson.py": "hang"})
    live = live_preview(paths, 90, dict(os.environ), logs, budget_s=6, command=command)
    assert list(live.reports) == ["01_lesson.py"]
    assert live.missing == {
        "02_lesson.py": "the live preview's 6 s ran out on this lesson",
        "03_lesson.py": "the live preview's 6 s ran out after 2 of 3 lessons",
    }


def h200_reports() -> dict[str, ScenarioReport]:
    return gpu_check.read_reports((H200 / "h200_torch211_course.jsonl").read_text().splitlines())


def test_the_bandwidth_line_takes_a_kernel_that_read_from_memory() -> None:
    """On the H200 the line took the largest elementwise kernel wherever it ran; later kernels of a chain read
    what the kernel before wrote, from L2 (lesson 03's ``abs`` and ``neg``: 102.6 % of the copy ceiling). Only a
    run's first launch, after the engine's L2 flush, counts."""
    reports = h200_reports()
    chain = reports["03_elementwise_chain.py"]
    assert chain.eager is not None
    assert max(kernel.ceiling_pct or 0 for kernel in chain.eager.kernels) > 100  # the trap is in the recording
    assert bandwidth_cell(chain) == (
        "vectorized_elementwise_kernel<mul> (eager): 2300 GB/s, 54% of the copy ceiling (4258 GB/s)"
    )
    chosen = {name: largest_from_memory(report) for name, report in reports.items()}
    shares = {name[:2]: found.kernel.ceiling_pct or 0 for name, found in chosen.items() if found is not None}
    assert " ".join(shares) == "01 02 03 05 06 07 08 09 12 15 16 18 19 21 22 24 25 28 29"
    assert max(shares.values()) < 95  # the highest, 08's fp16 cast (2 bytes an element read): 89.6 %
    # First in its run, but after the reduction that read x into L2: no kernel of 10 qualifies, nor of 14 (a gemm).
    assert chosen["10_after_a_reduction.py"] is None and chosen["14_matmul_bias_relu.py"] is None
    assert bandwidth_cell(reports["10_after_a_reduction.py"]) == (
        "— (first launches: eager memset; compiled triton_red_fused_mean_0)"
    )
    found = chosen["29_memory_at_the_peak.py"]
    assert found is not None and found.mode == "eager" and found.kernel.short_name.endswith("<sin>")


def test_a_first_kernel_launched_twice_per_run_is_not_taken() -> None:
    """A row's time is all its launches': the second launch of lesson 24's ``add`` reads what the first left in L2."""
    twice = Kernel("vectorized_elementwise_kernel<add>", "add", 2, 10.0, 4096, 2048, gbs=600.0, ceiling_pct=14.0)
    once = Kernel("triton_poi_fused_add_0", "triton_poi_fused_add_0", 1, 5.0, 2048, 1024, gbs=600.0, ceiling_pct=14.0)
    eager = ModeResult(2, (twice,), 6144, 10.0)
    compiled = ModeResult(1, (once,), 3072, 5.0)
    both = ScenarioReport("/x/24.py", "t", "cuda", "H200", "2.11", 1024, eager=eager, compiled=compiled)
    found = largest_from_memory(both)
    assert found is not None and (found.mode, found.kernel) == ("compiled", once)


def test_the_table_of_the_recorded_h200_run_points_at_the_crashed_lessons_log(tmp_path: Path) -> None:
    """A lesson that lost its engine names the log that holds what the engine said; a lesson with no live preview
    says why in its own row."""
    reports = h200_reports()
    paths = [Path(name) for name in sorted(reports)]
    logs = LessonLogs(tmp_path / "stderr")
    logs.note(Path("03_elementwise_chain.py"), "ended: the engine was killed by SIGSEGV")
    live = LivePreview(missing={path.name: "the live preview's 120 s ran out after 0 of 29 lessons" for path in paths})
    rows, details = gpu_check.findings(paths, reports, live, gpu_check.recorded_preview(), tmp_path, logs)
    crashed = next(row for row in rows if row.scenario == "03_elementwise_chain.py")
    assert crashed.claims.endswith("(its engines' stderr: stderr/03_elementwise_chain.log)")
    assert details["03_elementwise_chain.py"]["stderr_log"] == "stderr/03_elementwise_chain.log"
    assert details["01_one_add.py"]["stderr_log"] is None
    assert all("no live preview: the live preview's 120 s ran out" in row.kernels for row in rows if row.kernels != "—")


def test_the_checks_modules_import_neither_textual_nor_torch() -> None:
    """The GPU machines have torch and rich only: the check's own process loads no UI library, and leaves torch to
    its engines."""
    code = BLOCK_UI_LIBRARIES + textwrap.dedent(
        """
        import tools.gpu_check.check
        loaded = sorted({name.split(".")[0] for name in sys.modules} & {"textual", "plotext", "torch", "triton"})
        print(loaded)
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_a_lessons_log_is_this_runs_alone_and_stops_growing_at_its_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scenario printing in a loop must not fill the GPU machine's disk nor the folder that comes back: past the
    limit an engine's lines are counted, while the check's own notes (how the engine ended) are still written."""
    from tools.gpu_check import logs as gpu_logs

    lesson = Path("01_lesson.py")
    LessonLogs(tmp_path).note(lesson, "ended: an earlier check's engine")
    monkeypatch.setattr(gpu_logs, "LIMIT_BYTES", 200)
    logs = LessonLogs(tmp_path)
    sink = logs.section(lesson, "the GPU's engine")
    for number in range(50):
        sink(f"line {number:02d} of a scenario that prints in a loop\n")
    logs.note(lesson, "ended: the engine was killed by SIGSEGV")
    logs.close()
    text = logs.path(lesson).read_text()
    assert "earlier" not in text and text.startswith("=== the GPU's engine ===\nline 00 ")
    kept = re.findall(r"^line \d\d ", text, flags=re.MULTILINE)
    assert 3 <= len(kept) < 10
    assert (
        f"{kept[-1]}of a scenario that prints in a loop\n# the engines' lines stop here: a log is kept to 200 bytes\n"
        in text
    )
    assert text.endswith(
        f"# ended: the engine was killed by SIGSEGV\n# {50 - len(kept)} lines of the engines were not kept\n"
    )
