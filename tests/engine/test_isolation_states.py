"""One scenario's tricks cannot reach the next: each crafted scenario changes one class of process state, and a
healthy scenario run after it through the same client (in the next engine, the spare started while the crafted one
ran) finds the state, and measures the kernels, it found alone.

The crafted scenarios change the state when they load and then fail in ``inputs()``: nothing to compile,
and a failed scenario's changes must be undone as much as a successful one's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import measure

from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.transport.client import EngineClient

HEALTHY = '''\
"""Records the engine state it finds"""
import gc, json, os, resource, signal, sys, threading
import torch

SIZE = 4096
TIMERS = (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)
HANDLED = (signal.SIGTERM, signal.SIGUSR1, signal.SIGALRM)


def fn(a):
    return (a + 1).relu()


def _name(value):
    return getattr(value, "__qualname__", None) or str(value)


def inputs(size, device):
    state = {
        "autocast": [torch.is_autocast_enabled(kind) for kind in ("cpu", "cuda")],
        "autocast_dtype": str(torch.get_autocast_dtype("cpu")),
        "grad": torch.is_grad_enabled(),
        "inference": torch.is_inference_mode_enabled(),
        "anomaly": torch.is_anomaly_enabled(),
        "function_modes": torch._C._len_torch_function_stack(),
        "mkldnn": torch.backends.mkldnn.enabled,
        "opt_einsum": torch.backends.opt_einsum.enabled,
        "patched": [_name(torch.Tensor.relu), _name(torch.relu), _name(torch.nn.functional.relu)],
        "torch_extra": hasattr(torch, "kernel_tui_was_here"),
        "nofile": resource.getrlimit(resource.RLIMIT_NOFILE),
        "itimers": [signal.getitimer(which) for which in TIMERS],
        "handlers": {sig.name: _name(signal.getsignal(sig)) for sig in HANDLED},
        "mask": sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])),
        "hooks": [_name(sys.getprofile()), _name(sys.gettrace()), _name(threading.getprofile())],
        "gc": [gc.isenabled(), gc.get_threshold(), gc.get_freeze_count() > 0],
        "switch_interval": sys.getswitchinterval(),
        "nice": os.getpriority(os.PRIO_PROCESS, 0),
        "cpus": sorted(os.sched_getaffinity(0)),
        "threads": torch.get_num_threads(),
    }
    with open(os.environ["KERNEL_TUI_PROBE_OUT"], "a", encoding="utf-8") as out:
        out.write(json.dumps(state) + "\\n")
    return (torch.randn(size, device=device),)
'''

SPOILER = '''\
"""Changes {name}, then fails"""
import gc, os, resource, signal, sys, threading
import torch

SIZE = 64
{code}


def fn(a):
    return a


def inputs(size, device):
    raise RuntimeError("spoiled, on purpose")
'''

SPOILERS = {
    "a patched tensor method": "torch.Tensor.relu = lambda self: torch.clamp_min(self * 1.0, 0.0)",
    "patched torch functions": (
        "torch.relu = torch.nn.functional.relu = lambda x, inplace=False: x * 1.0\ntorch.kernel_tui_was_here = 1"
    ),
    "autocast left entered": "torch.autocast('cpu', dtype=torch.bfloat16).__enter__()",
    "grad mode and a function mode left entered": (
        "torch.set_grad_enabled(True)\nclass Mode(torch.overrides.TorchFunctionMode):\n    pass\nMode().__enter__()"
    ),
    "anomaly mode": "torch.autograd.set_detect_anomaly(True)",
    "backend flags": "torch.backends.mkldnn.enabled = False\ntorch.backends.opt_einsum.enabled = False",
    "a lowered open-files limit": (
        "resource.setrlimit(resource.RLIMIT_NOFILE, (32, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))"
    ),
    "pending timers": (
        "signal.alarm(30)\nsignal.setitimer(signal.ITIMER_VIRTUAL, 30)\nsignal.setitimer(signal.ITIMER_PROF, 30)"
    ),
    "signal handlers": (
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nsignal.signal(signal.SIGUSR1, lambda *a: None)\n"
        "signal.signal(signal.SIGALRM, signal.SIG_IGN)"
    ),
    # SIGUSR1 arrives while blocked: unblocking it as it is would end the engine (its default action).
    "a blocked signal mask": (
        "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1})\n"
        "signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)"
    ),
    "profile and trace hooks": (
        "def hook(*args):\n    return hook\n"
        "sys.setprofile(hook)\nsys.settrace(hook)\nthreading.setprofile(hook)\nthreading.settrace(hook)"
    ),
    "the collector": "gc.disable()\ngc.set_threshold(1, 1, 1)\ngc.freeze()",
    "the switch interval": "sys.setswitchinterval(0.5)",
    "the CPU affinity": "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})",
    # Only the guard object ends inference mode, and the scenario keeps it where nobody can reach it.
    "inference mode held": (
        "import builtins\nbuiltins.kept_guard = torch.inference_mode()\nbuiltins.kept_guard.__enter__()"
    ),
    "a lowered hard limit": (
        "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, hard - 1), hard - 1))"
    ),
    # An unprivileged process can raise its nice value but never lower it again.
    "a raised nice value": "os.nice(5)",
}


@dataclass
class Probe:
    client: EngineClient
    healthy: Path
    observed: Path
    alone_state: dict[str, Any]
    alone_kernels: tuple[object, ...]

    def run(self) -> tuple[ScenarioReport, dict[str, Any]]:
        report = measure(self.client, self.healthy)
        return report, json.loads(self.observed.read_text().splitlines()[-1])


def kernels(report: ScenarioReport) -> tuple[object, ...]:
    assert report.error is None, report.error
    assert report.eager is not None and report.compiled is not None
    return (
        report.threads,
        report.eager.kernel_count,
        tuple(kernel.name for kernel in report.eager.kernels),
        report.compiled.kernel_count,
        tuple(kernel.name for kernel in report.compiled.kernels),
    )


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Probe]:
    folder = tmp_path_factory.mktemp("isolation-states")
    healthy = folder / "healthy" / "healthy.py"
    healthy.parent.mkdir()
    healthy.write_text(HEALTHY, encoding="utf-8")
    observed = folder / "observed.jsonl"
    with EngineClient("cpu", env={**os.environ, "KERNEL_TUI_PROBE_OUT": str(observed)}) as client:
        client.start()
        found = Probe(client, healthy, observed, {}, ())
        alone, found.alone_state = found.run()
        found.alone_kernels = kernels(alone)
        yield found


def _spoil(probe: Probe, tmp_path: Path, name: str, code: str) -> ScenarioReport:
    spoiler = tmp_path / "spoiler.py"
    spoiler.write_text(SPOILER.format(name=name, code=code), encoding="utf-8")
    spoiled = measure(probe.client, spoiler)
    assert spoiled.error is not None and spoiled.error.stage == "inputs", spoiled.error
    return spoiled


@pytest.mark.parametrize("name", sorted(SPOILERS))
def test_a_state_a_scenario_changes_dies_with_its_engine(probe: Probe, tmp_path: Path, name: str) -> None:
    spoiled = _spoil(probe, tmp_path, name, SPOILERS[name])
    assert not [note for note in spoiled.notes if "left a process" in note], "it started nothing"
    report, state = probe.run()
    assert {key: value for key, value in state.items() if value != probe.alone_state[key]} == {}
    assert kernels(report) == probe.alone_kernels


@pytest.mark.engine
def test_a_run_measured_with_the_thread_count_inputs_set_reports_that_count(probe: Probe, tmp_path: Path) -> None:
    default = probe.alone_kernels[0]
    chosen = 1 if default != 1 else 2
    scenario = tmp_path / "one_thread.py"
    scenario.write_text(
        "import torch\nSIZE = 4096\n\ndef fn(a):\n    return (a + 1).relu()\n\n"
        f"def inputs(size, device):\n    torch.set_num_threads({chosen})\n    return (torch.randn(size),)\n",
        encoding="utf-8",
    )
    report = measure(probe.client, scenario)
    assert report.error is None and report.threads == chosen
    after, state = probe.run()
    assert after.threads == state["threads"] == default
