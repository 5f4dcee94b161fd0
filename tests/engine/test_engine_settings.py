"""A run's settings travel in its request, never in the engine's environment: ``kernel-tui run --arch`` and
``--remeasure-ceiling`` take effect with no ``KERNEL_TUI_*`` setting in the engine's environment, which a
transport over ssh would not carry. The scenarios below look for those settings from inside the engine and fail
their ``inputs`` stage if they find one."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from support import cli_support as cli_support
from support.locations import REPO

SETTINGS_IN_THE_ENVIRONMENT = ("KERNEL_TUI_ARCH", "KERNEL_TUI_REMEASURE_CEILING")

LOOKS_AT_ITS_ENVIRONMENT = f"""import os
import torch

SIZE = 4096


def fn(a):
    return (a + 1).relu()


def inputs(size, device):
    found = [name for name in {SETTINGS_IN_THE_ENVIRONMENT!r} if name in os.environ]
    if found:
        raise RuntimeError(f"the engine's environment carries {{found}}")
    return (torch.randn(size, device=device),)
"""


def run_json(scenario: Path, *options: str, cache: Path) -> dict[str, Any]:
    """``kernel-tui run SCENARIO OPTIONS --json`` in a child whose environment has no run setting of its own."""
    environment = {name: value for name, value in os.environ.items() if name not in SETTINGS_IN_THE_ENVIRONMENT}
    environment["KERNEL_TUI_CACHE_DIR"] = str(cache)
    code, (report,), stderr = cli_support.run_json(str(scenario), *options, env=environment, cwd=REPO)
    assert code == 0, stderr[-3000:]
    assert report["error"] is None, report["error"]
    return report


@pytest.mark.engine
def test_the_preview_generates_for_the_arch_the_run_asks_for(tmp_path: Path) -> None:
    scenario = tmp_path / "looks_at_its_environment.py"
    scenario.write_text(LOOKS_AT_ITS_ENVIRONMENT)
    report = run_json(scenario, "--device", "cuda-preview", "--arch", "80", cache=tmp_path / "cache")
    assert (report["device"], report["arch"]) == ("cuda-preview", 80)
    assert "A100" in report["device_name"] and "sm_80" in report["device_name"]


@pytest.mark.engine
def test_remeasure_ceiling_measures_again_whatever_the_cache_holds(tmp_path: Path) -> None:
    scenario = tmp_path / "looks_at_its_environment.py"
    scenario.write_text(LOOKS_AT_ITS_ENVIRONMENT)
    cache = tmp_path / "cache"
    run_json(scenario, "--device", "cpu", "--no-time", cache=cache)  # measures the ceilings and caches them
    # A fresh figure far above this CPU's, yet one a CPU could reach (a figure past any is refused on read, flag
    # or not): kept without the flag (no kernel comes near it), replaced with it.
    entries = json.loads((cache / "bandwidth.json").read_text())
    for entry in entries.values():
        if "gbs" in entry:
            entry["gbs"] = 4000.0
    (cache / "bandwidth.json").write_text(json.dumps(entries))
    assert run_json(scenario, "--device", "cpu", "--no-time", cache=cache)["bandwidth_ceiling_gbs"] == 4000.0
    asked = run_json(scenario, "--device", "cpu", "--no-time", "--remeasure-ceiling", cache=cache)
    assert asked["bandwidth_ceiling_gbs"] is not None and asked["bandwidth_ceiling_gbs"] < 4000.0


@pytest.mark.engine
def test_the_explorers_link_asks_for_its_arch_in_each_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``kernel-tui --device cuda-preview --arch 80`` (the explorer, and each browser tab of ``--serve``): the
    link's engine previews sm_80 with no setting in its environment."""
    from kernel_tui.transport.protocol import Done
    from kernel_tui.ui.link.engine_link import client_engine_link

    for name in SETTINGS_IN_THE_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    scenario = tmp_path / "looks_at_its_environment.py"
    scenario.write_text(LOOKS_AT_ITS_ENVIRONMENT)
    link = client_engine_link("cuda-preview", arch=80)
    try:
        (done,) = [message for message in link.run(scenario, sweep=False) if isinstance(message, Done)]
    finally:
        link.close()
    assert done.report.error is None, done.report.error
    assert (done.report.arch, "sm_80" in done.report.device_name) == (80, True)


def test_serve_gives_each_tab_the_arch_on_its_command_line() -> None:
    from kernel_tui.ui.app.serve import app_command

    assert app_command([], device="cuda-preview", arch=100).endswith("--device cuda-preview --arch 100")
