"""The built-in course: every lesson's claims hold when the engine measures it, and every lesson keeps the
house rules (numbered in order, 80 to 250 words, a question before the explanation).

The claim tests run each scenario through a real engine, compiles included; the shared Inductor cache
(``tests/conftest.py``) makes every run after the first a cache hit. Torch is never imported here: the
engine is a child process, and whether a GPU exists is asked of an engine too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import measure

from kernel_tui.client import EngineClient, EngineDied
from kernel_tui.course import course_dir
from kernel_tui.expect import NEEDS_SWEEP
from kernel_tui.report import ScenarioReport
from kernel_tui.scenario_file import CLAIM_KEYS, COMPILE_KEYS, find_scenarios, read_scenario

NUMBERED = re.compile(r"^(\d{2})_[a-z0-9_]+\.py$")
MIN_LESSONS = 14
MIN_WORDS, MAX_WORDS = 80, 250
EXPLANATION = "**Why.**"
"""Where each lesson's explanation starts; the prediction questions come before it."""

COURSE = find_scenarios([course_dir()])


def _ids(paths: list[Path]) -> list[str]:
    return [path.stem for path in paths]


def _failures(report: ScenarioReport) -> str:
    rows = [
        f"  {key}: claimed {check.claimed}, measured {check.measured}"
        for key, check in report.expect.items()
        if not check.ok
    ]
    return "\n".join(rows)


def _check_report(report: ScenarioReport, claims: dict[str, float], device: str) -> None:
    assert report.error is None, f"{report.error.one_line()}\n{report.error.details}"
    assert report.device == device
    assert set(report.expect) == set(claims), f"claims not checked: {set(claims) - set(report.expect)}"
    assert all(check.ok for check in report.expect.values()), (
        f"{Path(report.scenario).name} on {device}: claims that do not hold\n{_failures(report)}"
    )


# -- the files themselves ------------------------------------------------------------------------


def test_the_course_has_enough_lessons() -> None:
    assert len(COURSE) >= MIN_LESSONS, [path.name for path in COURSE]


def test_files_are_numbered_in_course_order() -> None:
    names = [path.name for path in COURSE]
    unnumbered = [name for name in names if not NUMBERED.match(name)]
    assert not unnumbered, f"every scenario in the course needs a number: {unnumbered}"
    numbers = [int(NUMBERED.match(name).group(1)) for name in names]
    assert numbers == list(range(1, len(names) + 1)), names


@pytest.mark.parametrize("path", COURSE, ids=_ids(COURSE))
def test_lesson_asks_first_and_fits_the_length(path: Path) -> None:
    info = read_scenario(path)
    assert info.has_fn and info.has_inputs
    assert info.title and info.title != path.stem, "the first docstring line is the title"
    words = len(info.lesson.split())
    assert MIN_WORDS <= words <= MAX_WORDS, f"{path.name}: {words} words"
    question, marker, explanation = info.lesson.partition(EXPLANATION)
    assert marker, f"{path.name}: the explanation starts with {EXPLANATION}"
    assert "?" in question, f"{path.name}: ask the learner to predict before explaining"
    assert explanation.strip()


@pytest.mark.parametrize("path", COURSE, ids=_ids(COURSE))
def test_every_lesson_makes_claims_for_both_devices(path: Path) -> None:
    info = read_scenario(path)
    assert info.expect, f"{path.name}: a lesson without EXPECT checks nothing"
    assert info.claims_for("cpu"), f"{path.name}: no claims for CPU"
    assert info.claims_for("cuda"), f"{path.name}: no claims for CUDA"


def test_list_shows_the_course_in_order(capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    from kernel_tui.cli import main

    monkeypatch.setenv("COLUMNS", "400")  # one row per line, so titles are not wrapped
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    positions = []
    for path in COURSE:
        title = read_scenario(path).title
        assert title in out, f"{title!r} missing from kernel-tui list"
        positions.append(out.index(title))
    assert positions == sorted(positions)


def test_readme_documents_every_key() -> None:
    readme = (Path(course_dir()) / "README.md").read_text(encoding="utf-8")
    for key in (*CLAIM_KEYS, *COMPILE_KEYS, "SIZE", "SIZES", "EXPECT", "COMPILE", "def fn", "def inputs"):
        assert f"`{key}" in readme, key


# -- the claims, measured --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("path", COURSE, ids=_ids(COURSE))
def test_claims_hold_on_cpu(engine: EngineClient, path: Path) -> None:
    claims = read_scenario(path).claims_for("cpu")
    assert claims
    report = measure(engine, path, sweep=bool(NEEDS_SWEEP & set(claims)))
    _check_report(report, claims, "cpu")


@pytest.fixture(scope="module")
def cuda_engine() -> Iterator[EngineClient]:
    """An engine on the GPU; where torch sees none, the engine refuses to start and the tests skip."""
    client = EngineClient("cuda")
    try:
        client.start()
    except EngineDied as death:
        client.close()
        if "sees no CUDA device" in death.stderr_tail:
            pytest.skip("no CUDA device: torch.cuda.is_available() is false in the engine")
        pytest.fail(f"the CUDA engine did not start: {death.describe()}\n{death.stderr_tail}")
    with client:
        yield client


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("path", COURSE, ids=_ids(COURSE))
def test_claims_hold_on_cuda(cuda_engine: EngineClient, path: Path) -> None:
    claims = read_scenario(path).claims_for("cuda")
    assert claims
    report = measure(cuda_engine, path, sweep=bool(NEEDS_SWEEP & set(claims)))
    _check_report(report, claims, "cuda")
