"""A whole model on two cores (issue 56): ResNet18's training step and a 4-layer GPT forward, timed, on the CPU,
quiet and then beside busy loops (one per core), in one invocation; each run's wall time against the default
``--timeout``, where its minutes went stage by stage, and the loaded run against the quiet one.

Each run is what ``kernel-tui run --model ... --device cpu`` does (the same scenario ``--model`` writes, in an
engine of its own, its start included), read through the engine's stage messages so the minutes can be split.
The Inductor cache is the one the environment names, where a run after another of the same model compiles warm;
``--cold`` gives each run an empty one of its own, as a user's first run meets it.

Run: ``.venv/bin/python bench/model_step.py`` (``--cold``; ``--no-record`` to leave bench/RESULTS.md alone).
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field

from common import REPO
from loaded import busy_loops

from kernel_tui.commands.arguments import DEFAULT_TIMEOUT_S
from kernel_tui.model.scenario.model_scenario import write_model_scenario
from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.engine_died import EngineDied
from kernel_tui.transport.protocol import Done, StageStartedMessage

RESULTS = REPO / "bench" / "RESULTS.md"
HEADING = "## A whole model on two cores: ResNet18 training, 4-layer GPT forward (`bench/model_step.py`, issue 56)"
WARM, COLD = "", ", cold Inductor cache"
MODELS = (
    ("ResNet18 training step", "torchvision.models:resnet18()", ["2x3x224x224"], True),
    ("4-layer GPT-2 forward", "transformers:GPT2Config(n_layer=4, n_embd=256, n_head=4)", ["2x128:int64"], False),
)
"""What a user would bring: torchvision's builder at ImageNet's size (a batch of two, BatchNorm's least in
training), and a Hugging Face config with four layers."""
TARGET = 1.0
"""Each run's wall time, as a share of the default timeout, must be below one: the run finishes."""


@dataclass
class ModelRun:
    name: str
    wall_s: float = 0.0
    stages: list[tuple[str, float]] = field(default_factory=list)
    compile_s: float | None = None
    step_ms: tuple[float | None, float | None] = (None, None)
    error: str | None = None

    def stage_text(self) -> str:
        return ", ".join(f"{stage} {seconds:.0f}" for stage, seconds in self.stages)


def run_model(name: str, model: str, inputs: list[str], train: bool, *, cold: bool = False) -> ModelRun:
    """One timed, unswept run of the model, as ``kernel-tui run --model`` makes it, split by stage; ``cold``: with
    an Inductor cache of its own, empty, as a user's first run of the model meets it."""
    command = ["kernel-tui", "run", "--model", model, *(f"--input={shape}" for shape in inputs)]
    path = write_model_scenario(model, inputs, train=train, command=" ".join(command), cwd=REPO)
    run = ModelRun(name)
    starts: list[tuple[str, float]] = []
    started = time.perf_counter()
    cache = tempfile.TemporaryDirectory(prefix="model-step-inductor-") if cold else None
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache.name} if cache is not None else None
    try:
        with EngineClient("cpu", stderr_sink=lambda line: None, env=env) as client:
            client.start()
            starts.append(("start", started))
            for message in client.run(str(path), sweep=False, timeout=DEFAULT_TIMEOUT_S, then_another=False):
                if isinstance(message, StageStartedMessage):
                    starts.append((message.stage, time.perf_counter()))
                elif isinstance(message, Done):
                    report = message.report
                    run.error = report.error.one_line() if report.error else None
                    if report.compiled is not None:
                        run.compile_s = report.compiled.compile_s
                    run.step_ms = tuple(  # type: ignore[assignment]
                        mode.time_us / 1e3 if mode is not None and mode.time_us is not None else None
                        for mode in (report.eager, report.compiled)
                    )
    except EngineDied as death:
        run.error = str(death)[:200]
    finally:
        if cache is not None:
            cache.cleanup()
    ended = time.perf_counter()
    run.wall_s = ended - started
    ends = [at for _, at in starts[1:]] + [ended]
    run.stages = [(stage, end - at) for (stage, at), end in zip(starts, ends)]
    return run


def measure_all(cold: bool = False) -> tuple[list[ModelRun], list[ModelRun], str]:
    """Every model quiet, then every model beside one busy loop per core."""
    quiet = [run_model(*model, cold=cold) for model in MODELS]
    cores = len(os.sched_getaffinity(0))
    load_before = os.getloadavg()[0]
    with busy_loops(cores, seconds=2 * DEFAULT_TIMEOUT_S * len(MODELS)):
        loaded = [run_model(*model, cold=cold) for model in MODELS]
        load_during = os.getloadavg()[0]
    return (
        quiet,
        loaded,
        f"{cores} busy loops; load average {load_before:.1f} before them, {load_during:.1f} at the end",
    )


def table(quiet: list[ModelRun], loaded: list[ModelRun]) -> list[tuple[str, str, float, bool]]:
    """One row per model and condition: the figure, its share of the timeout, and whether it finished."""
    rows = []
    for condition, runs in (("quiet", quiet), ("loaded", loaded)):
        for run in runs:
            share = run.wall_s / DEFAULT_TIMEOUT_S
            eager, compiled = (f"{ms:.0f} ms" if ms is not None else "—" for ms in run.step_ms)
            compile_s = f"{run.compile_s:.0f} s" if run.compile_s is not None else "—"
            value = (
                f"{run.wall_s:.0f} s ({share:.2f} of {DEFAULT_TIMEOUT_S:g} s); stages (s): {run.stage_text()}; "
                f"compile {compile_s}; a call eager {eager}, compiled {compiled}"
                + (f"; error: {run.error}" if run.error else "")
            )
            rows.append((f"{run.name}, {condition}", value, share, share < TARGET and run.error is None))
    for quiet_run, loaded_run in zip(quiet, loaded):
        ratio = loaded_run.wall_s / max(quiet_run.wall_s, 1e-9)
        rows.append((f"{quiet_run.name}, loaded / quiet", f"{ratio:.2f}×", ratio, True))
    return rows


def rows() -> list[dict[str, object]]:
    quiet, loaded, _ = measure_all()
    return [
        {"name": name, "value": value, "ratio": ratio, "target": f"< {TARGET:g} of the timeout", "met": met}
        for name, value, ratio, met in table(quiet, loaded)
    ]


def record(lines: list[tuple[str, str]], loops: str, cold: bool) -> None:
    today = datetime.date.today().isoformat()
    heading = HEADING + (COLD if cold else WARM)
    body = [
        f"Measured {today}, command `.venv/bin/python bench/model_step.py{' --cold' if cold else ''}`; {loops}. "
        "Each run is one engine, start "
        f"to report, unswept, timed; the default timeout is {DEFAULT_TIMEOUT_S:g} s. A stage's seconds run from its "
        "message to the next (`compile` is torch.compile's first call, `profile` the compiled side's profiles, "
        "bytes and memory, `timing` the interleaved rounds and what follows them).",
        "",
        "| run | measured |",
        "| --- | --- |",
        *(f"| {name} | {value.replace('|', '/')} |" for name, value in lines),
    ]
    section = heading + "\n\n" + "\n".join(body) + "\n"
    text = RESULTS.read_text()
    if heading + "\n" in text:  # the line whole: the warm heading begins the cold one
        start = text.index(heading + "\n")
        following = text.find("\n## ", start + len(heading))
        text = text[:start] + section + (text[following:] if following != -1 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    RESULTS.write_text(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-record", action="store_true", help="print only; leave bench/RESULTS.md alone")
    parser.add_argument("--cold", action="store_true", help="each run with an empty Inductor cache of its own")
    options = parser.parse_args()
    quiet, loaded, loops = measure_all(options.cold)
    found = table(quiet, loaded)
    for name, value, _, _ in found:
        print(f"{name}: {value}", flush=True)
    if not options.no_record:
        record([(name, value) for name, value, _, _ in found], loops, options.cold)
    return 0 if all(met for *_, met in found) else 1


if __name__ == "__main__":
    sys.exit(main())
