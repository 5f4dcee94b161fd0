"""Every lesson's predict dialog asks the lesson's own claims on the device it runs on, and grades each kind.

Lessons 24 and 25 asked in their text for each line's launches and for blocks and warps, while their dialogs
asked kernels and transfers; a guess made on the CPU was graded against a CUDA preview. Here the dialog of every
course lesson is opened on the CPU and on a CUDA preview (recorded reports, no engine) and must ask exactly the
claims the lesson makes there; each claim kind is graded against real recorded reports; and a guess is only ever
graded against a run on the kind of device it was made for.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from support.locations import REPO
from support.replay import Recording, ReplayEngineLink
from support.ui_support import DATA, explorer, make_app, shown_text, wait_for
from textual.pilot import Pilot

from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.scenario_file import CLAIM_KEYS, read_scenario
from kernel_tui.transport.protocol import Done, Hello
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.screens.dialogs.predict import PredictScreen, RevealScreen
from kernel_tui.ui.screens.explorer import ExplorerScreen
from kernel_tui.ui.state.course.answers import device_kind
from kernel_tui.ui.state.course.catalog import ScenarioEntry, load_catalog
from kernel_tui.ui.state.course.claim_kinds import CLAIM_KINDS, Amount, Choice, ClaimKind, kind_of
from kernel_tui.ui.state.course.questions import UNCLAIMED
from kernel_tui.ui.state.course.score import PredictionBook

COURSE = REPO / "scenarios"
LESSONS = sorted(COURSE.glob("[0-9]*.py"))
PREVIEW = DATA / "preview" / "course_sm90.jsonl"
CPU_RECORDINGS = {
    "15_graph_break.py": "ui_graph_break_messages.json",
    "16_static_shapes.py": "ui_static_shapes_messages.json",
    "18_tiny_tensors.py": "ui_tiny_tensors_messages.json",
    "20_matmul_against_elementwise.py": "ui_matmul_tanh_messages.json",
    "21_add_relu_backwards.py": "ui_train_add_relu_messages.json",
    "24_which_line.py": "ui_course_24_messages.json",
    "25_threads_and_warps.py": "ui_course_25_messages.json",
    "27_why_kernels_stay_apart.py": "ui_why_apart_messages.json",
    "28_where_the_time_goes.py": "ui_course_28_messages.json",
    "29_memory_at_the_peak.py": "ui_course_29_messages.json",
    "31_a_second_compile.py": "ui_course_31_messages.json",
    "32_autotune.py": "ui_course_32_messages.json",
}
"""The course lessons recorded on the CPU by ``tests/data/record_messages.py``, by file name."""


def preview_reports() -> dict[str, ScenarioReport]:
    """The CUDA preview (sm_90) of every course lesson, as the engine made it, by file name."""
    reports = [ScenarioReport.from_dict(json.loads(line)) for line in PREVIEW.read_text().splitlines()]
    return {Path(report.scenario).name: report for report in reports}


def cpu_report(lesson: str) -> ScenarioReport:
    recording = Recording.load(DATA / CPU_RECORDINGS[lesson])
    return next(message.report for message in reversed(recording.messages) if isinstance(message, Done))


def preview_recording(report: ScenarioReport) -> Recording:
    """A preview run of ``report``'s lesson as the engine would send it: a cuda-preview hello, then Done."""
    hello = Hello(pid=0, device=report.device, device_name=report.device_name, torch_version="", threads=1)
    return Recording(hello, Path(report.scenario).name, (Done(1, report),))


def cpu_hello() -> Hello:
    return Recording.load(DATA / "ui_add_relu_messages.json").hello


def entry_of(lesson: Path) -> ScenarioEntry:
    return next(iter(load_catalog([lesson], COURSE)))


def asked_on(lesson: Path, device: str) -> tuple[str, ...]:
    """What the lesson claims on ``device``, and what it asks that no claim holds, where that device measures it:
    read from the lesson's file."""
    info = read_scenario(lesson)
    keys = [*info.claims_for(device), *UNCLAIMED.get(lesson.name, ())]
    for key in keys:
        assert kind_of(key) is not None, f"{lesson.name} claims {key}, which no claim kind asks"
    return tuple(key for key in keys if device in (kind_of(key) or CLAIM_KINDS[0]).devices)


async def open_dialog(pilot: Pilot[None], app: KernelTuiApp) -> PredictScreen:
    await wait_for(pilot, lambda: explorer(app).hello is not None, what="the engine's hello")
    await pilot.press("r")
    await wait_for(pilot, lambda: isinstance(app.screen, PredictScreen), what="the predict dialog")
    dialog = app.screen
    assert isinstance(dialog, PredictScreen)
    return dialog


def is_current(screen: ExplorerScreen, lesson: Path) -> bool:
    return screen.catalog.current.path == lesson


def title(dialog: PredictScreen) -> str:
    return str(dialog.query_one("#predict-body").border_title or "")


def typed(key: str, value: float) -> str:
    """What a learner types for ``value`` in ``key``'s box: a choice by its word."""
    kind = kind_of(key)
    assert kind is not None
    return kind.entry.words[round(value)] if isinstance(kind.entry, Choice) else f"{value:g}"


@pytest.mark.long  # every lesson in turn: the fast tier opens single lessons' dialogs (test_ui_predict_kinds, _reveal)
@pytest.mark.parametrize("device", ["cpu", "cuda-preview"])
async def test_every_lessons_dialog_asks_its_own_claims(
    device: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lesson after lesson (``n``), at 80x24: ``r`` opens a dialog that asks exactly what the lesson claims on this
    device, each box on screen and each claim's sentence in the question; ``esc`` goes back without a run."""
    monkeypatch.setenv("KERNEL_TUI_STATE_DIR", str(tmp_path))
    if device == "cpu":
        recordings = {lesson.name: Recording(cpu_hello(), lesson.name, ()) for lesson in LESSONS}
    else:
        recordings = {name: preview_recording(report) for name, report in preview_reports().items()}
    link = ReplayEngineLink(recordings)
    app = make_app(link, paths=tuple(LESSONS), course=COURSE)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = explorer(app)
        for lesson in LESSONS:
            await wait_for(pilot, functools.partial(is_current, screen, lesson), what=f"{lesson.name} in the list")
            expected = asked_on(lesson, device)
            assert expected, f"{lesson.name} claims nothing on {device}"
            dialog = await open_dialog(pilot, app)
            assert sorted(dialog.quantities) == sorted(expected), lesson.name
            question = shown_text(dialog.query_one("#predict-question")).replace("\n", " ")
            for key in expected:
                kind = kind_of(key)
                assert kind is not None and kind.question.split(":")[0][:30] in question, (key, question)
                box = dialog.box(key)
                assert box.region.height and dialog.region.contains_region(box.region), f"{key} off screen at 80x24"
            assert device in title(dialog), "the dialog names its device"
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen, what="the explorer again")
            await pilot.press("n")
        assert link.runs == [], "esc runs nothing"


def test_no_claim_the_course_may_make_goes_unasked() -> None:
    """Every claim key a lesson may write, and every key the course's lessons do write, has a kind that asks it."""
    lines = [f"eager_line_{n}" for n in (7, 40)] + ["compiled_line_9", "fused_lines_6_7_8"]
    assert [key for key in (*CLAIM_KEYS, *lines) if kind_of(key) is None] == []
    for lesson in LESSONS:
        for device in ("cpu", "cuda", "cuda-preview"):
            asked_on(lesson, device)  # asserts each claim's kind


def graded(book: PredictionBook, lesson: Path, report: ScenarioReport, guess: dict[str, float]) -> list[bool]:
    entry = entry_of(lesson)
    book.use_device(report.device, report.arch)
    book.predict(entry, guess)
    answer = book.reveal(entry, report)
    assert answer is not None, f"{lesson.name}: not graded on {report.device}"
    book.answers.clear()
    return [answer.right(key) for key in guess]


def wrong_by_one(key: str, value: float) -> float:
    """A guess that must be graded wrong: the next word, or one more than the measurement."""
    kind = kind_of(key)
    assert kind is not None
    if isinstance(kind.entry, Choice):
        return float((round(value) + 1) % len(kind.entry.words))
    if isinstance(kind.entry, Amount):
        return value + max(kind.entry.slack, 0.05 * value) + 0.5
    return value + 1


def grading_cases() -> list[tuple[Path, ScenarioReport]]:
    previews = preview_reports()
    cases = [(lesson, previews[lesson.name]) for lesson in LESSONS]
    return cases + [(COURSE / name, cpu_report(name)) for name in CPU_RECORDINGS]


@pytest.mark.parametrize(
    ("lesson", "report"), grading_cases(), ids=lambda case: case.name[:2] if isinstance(case, Path) else case.device
)
def test_each_claim_is_graded_right_at_its_claim_and_wrong_off_it(
    lesson: Path, report: ScenarioReport, tmp_path: Path
) -> None:
    """The lesson's claimed values, guessed on the device of a real recorded report, are all right (as the
    engine's checks of the same claims say); one more, or the next word, is wrong."""
    book = PredictionBook(tmp_path / "predictions.json")
    entry = entry_of(lesson)
    book.use_device(report.device, report.arch)
    claims = entry.claims_for(report.device)
    measured = {key: kind.measure(key, report) for key in book.questions(entry).keys if (kind := kind_of(key))}
    checked = {key: value for key, value in measured.items() if value is not None and key in claims}
    for key in checked:
        check, kind = report.expect.get(key), kind_of(key)
        if isinstance(getattr(kind, "entry", None), Choice):
            continue  # a word, not the claim's number: graded below by what was measured
        if check is not None and check.ok:  # where the engine found the claim true, the guess of it is right
            assert graded(book, lesson, report, {key: claims[key]}) == [True], key
    right = {key: value for key, value in measured.items() if value is not None}
    assert all(graded(book, lesson, report, right)) if right else True
    wrong = {key: wrong_by_one(key, value) for key, value in right.items()}
    assert not any(graded(book, lesson, report, wrong)) if wrong else True


def test_the_recorded_reports_grade_every_claim_kind() -> None:
    """Each kind is graded above against at least one real report that measured it."""
    measured_kinds: set[str] = set()
    for lesson, report in grading_cases():
        book = PredictionBook(Path("/nonexistent/predictions.json"))
        book.use_device(report.device, report.arch)
        for key in book.questions(entry_of(lesson)).keys:
            kind = kind_of(key)
            if kind is not None and kind.measure(key, report) is not None:
                measured_kinds.add(kind.name)
    unmeasured = {kind.name for kind in CLAIM_KINDS} - measured_kinds - {"sweep compiles"}
    assert unmeasured == set(), "a claim kind with no recorded report to grade it against"


def test_a_cpu_guess_is_not_graded_against_a_preview_run_and_is_asked_again(tmp_path: Path) -> None:
    lesson = COURSE / "25_threads_and_warps.py"
    entry, preview = entry_of(lesson), preview_reports()[lesson.name]
    book = PredictionBook(tmp_path / "predictions.json", device="cpu")
    cpu_questions = book.questions(entry).keys
    assert "compiled_thread_share" in cpu_questions and "compiled_grid" not in cpu_questions
    book.predict(entry, {"eager": 2, "compiled": 1, "compiled_thread_share": 0})
    assert book.reveal(entry, preview) is None, "a CPU guess graded against a CUDA preview"
    assert book.answers == {} and not book.pending
    assert book.device == "cuda-preview" and book.wants_prediction(entry), "asked again, for the preview"
    preview_keys = book.questions(entry).keys
    assert "compiled_grid" in preview_keys and "compiled_warps" in preview_keys
    assert book.device_kind(entry) == "cuda-preview sm_90", "a grid holds for one architecture"
    book.predict(entry, {key: preview.expect[key].claimed for key in preview_keys})
    answer = book.reveal(entry, preview)
    assert answer is not None and answer.points == len(preview_keys)
    assert list(book.answers) == [(lesson.name, "cuda-preview sm_90")]
    book.use_device("cpu")
    assert book.wants_prediction(entry) and book.hides_explanation(entry), "the CPU's answer is still to give"
    book.use_device("cuda-preview", 80)
    assert book.wants_prediction(entry), "sm_80 is another kind of device"
    reread = PredictionBook(book.path, device="cuda-preview", arch=90)
    assert not reread.wants_prediction(entry) and reread.score == (len(preview_keys), len(preview_keys))
    assert device_kind("cuda-preview", 90, per_arch=False) == "cuda-preview", "kernels alone hold for any arch"


def test_an_old_score_file_reads_as_the_cpu_or_the_device_it_names(tmp_path: Path) -> None:
    lesson = COURSE / "02_add_relu.py"
    path = tmp_path / "predictions.json"
    old = {"predicted": {"eager": 2, "compiled": 1}, "measured": {"eager": 2, "compiled": 1}}
    named = {**old, "device": "cuda"}
    path.write_text(json.dumps({"version": 2, "lessons": {lesson.name: old, "01_one_add.py": named}}))
    book = PredictionBook(path)
    assert set(book.answers) == {(lesson.name, "cpu"), ("01_one_add.py", "cuda")}
    assert not book.wants_prediction(entry_of(lesson)) and book.score == (4, 4)
    assert book.score_line() == "Score across the course: 4 of 4 predictions right (cpu 2/2 · cuda 2/2)."
    book.use_device("cuda-preview")
    assert book.wants_prediction(entry_of(lesson)), "answered on the CPU: asked again on a preview"


async def test_a_cpu_guess_at_lesson_25_meets_a_preview_run_and_the_preview_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's case: asked on the CPU, the run came back from a CUDA preview. It is not graded (no
    ``you said 1 ✗``); r asks the preview's own questions, blocks and warps, and grades them."""
    monkeypatch.setenv("KERNEL_TUI_STATE_DIR", str(tmp_path))
    lesson = COURSE / "25_threads_and_warps.py"
    preview = preview_reports()[lesson.name]
    recording = preview_recording(preview)
    link = ReplayEngineLink({lesson.name: Recording(cpu_hello(), lesson.name, recording.messages)})
    app = make_app(link, paths=(lesson,), course=COURSE)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot, app)
        assert "compiled_grid" not in dialog.quantities and "cpu" in (
            dialog.query_one("#predict-body").border_title or ""
        )
        for key in dialog.quantities:
            await pilot.press(*typed(key, 1), "enter")

        def ended() -> bool:
            run = explorer(app).runs.get(lesson)
            return run is not None and not run.running

        await wait_for(pilot, ended, what="the run's end")
        await pilot.pause()
        assert not isinstance(app.screen, RevealScreen) and app.predictions.answers == {}
        dialog = await open_dialog(pilot, app)
        assert "compiled_grid" in dialog.quantities and "sm_90" in (
            dialog.query_one("#predict-body").border_title or ""
        )
        for key in dialog.quantities:
            await pilot.press(*typed(key, preview.expect[key].claimed), "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RevealScreen), what="the reveal")
        reveal = app.screen
        assert isinstance(reveal, RevealScreen)
        assert reveal.answer.points == len(dialog.quantities) and reveal.device == "cuda-preview sm_90"
        counts = shown_text(reveal.query_one("#reveal-counts"))
        assert "blocks" in counts and "warps a block" in counts and "1024" in counts.replace(",", "")
        assert "cuda-preview sm_90" in (reveal.query_one("#reveal-body").border_title or "")


async def test_lesson_33_asks_which_module_leads_and_its_share_in_the_preview(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module's claims get boxes of their kind at 80x24: which module leads (a yes or no per side) and its
    percent of the FLOPs and bytes (a number, near enough within 5 %). Answered with the lesson's own claims on its
    recorded sm_90 preview, every one is right; the reveal names the module."""
    monkeypatch.setenv("KERNEL_TUI_STATE_DIR", str(tmp_path))
    lesson = COURSE / "33_a_models_hotspot.py"
    preview = preview_reports()[lesson.name]
    app = make_app(ReplayEngineLink({lesson.name: preview_recording(preview)}), paths=(lesson,), course=COURSE)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot, app)
        modules = [key for key in dialog.quantities if key.endswith("_model-lm_head")]
        assert len(modules) == 6 and {kind.name for key in modules if (kind := kind_of(key))} == {
            "hotspot module",
            "module share",
        }
        asked = shown_text(dialog.query_one("#predict-question")).replace("\n", " ")
        assert "more FLOPs, than any other module" in asked and "percent of the call's bytes" in asked
        for key in dialog.quantities:
            await pilot.press(*typed(key, preview.expect[key].claimed), "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RevealScreen), what="the reveal")
        reveal = app.screen
        assert isinstance(reveal, RevealScreen)
        assert reveal.answer.points == len(dialog.quantities)
        counts = " ".join(shown_text(reveal.query_one("#reveal-counts")).split())
        assert "model.lm_head" in counts, counts


def test_a_damaged_score_file_keeps_what_it_can_read(tmp_path: Path) -> None:
    """A hand edit: an answer that is not a dict, an infinite or NaN guess, a word past the last, a key no kind
    knows. Each bad answer is left out, the rest is read, and nothing raises."""
    path = tmp_path / "predictions.json"
    bad_cpu = {"predicted": {"eager": 1e400}, "measured": {}}
    bad_preview = {"predicted": {"faster": 7}, "measured": {}}
    kept = {"predicted": {"eager_transfers": 2.5, "nope": 1}, "measured": {"eager_transfers": "NaN"}}
    lessons = {"a.py": {"cpu": bad_cpu, "cuda": "x", "cuda-preview": bad_preview}, "b.py": [1], "c.py": kept}
    path.write_text(json.dumps({"version": 3, "lessons": lessons}))
    book = PredictionBook(path)
    assert list(book.answers) == [("c.py", "cpu")]
    assert book.answers["c.py", "cpu"].predicted == {"eager_transfers": 2.5} and book.score == (0, 0)


def _fewer_compiled(_key: str, report: ScenarioReport) -> float | None:
    if report.eager is None or report.compiled is None:
        return None
    return 0.0 if report.compiled.kernel_count < report.eager.kernel_count else 1.0


async def test_a_new_claim_kind_needs_no_new_dialog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One more entry in ``CLAIM_KINDS`` and a lesson that asks it: the same dialog gives it a box of its kind (a
    word here), and the same reveal grades it against the recorded report."""
    from kernel_tui.ui.state.course import claim_kinds, questions

    fewer = ClaimKind(
        "fewer kernels",
        r"fewer_compiled",
        "Will torch.compile run fewer kernels than eager?",
        row=lambda _key: "fewer compiled",
        label=lambda _key: "compiled runs fewer",
        entry=Choice(("yes", "no")),
        column=lambda _key: None,
        measure=_fewer_compiled,
    )
    monkeypatch.setattr(claim_kinds, "CLAIM_KINDS", (*claim_kinds.CLAIM_KINDS, fewer))
    monkeypatch.setattr(questions, "CLAIM_KINDS", claim_kinds.CLAIM_KINDS)
    lesson = COURSE / "24_which_line.py"
    monkeypatch.setitem(questions.UNCLAIMED, lesson.name, ("fewer_compiled",))
    monkeypatch.setenv("KERNEL_TUI_STATE_DIR", str(tmp_path))
    link = ReplayEngineLink.from_files(DATA / CPU_RECORDINGS[lesson.name])
    app = make_app(link, paths=(lesson,), course=COURSE)
    claims = entry_of(lesson).claims_for("cpu")
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot, app)
        assert dialog.quantities[-1] == "fewer_compiled" and "fewer kernels than eager" in shown_text(
            dialog.query_one("#predict-question")
        ).replace("\n", " ")
        assert dialog.box("fewer_compiled").placeholder == "yes or no"
        for key in dialog.quantities:
            await pilot.press(*(typed(key, claims[key]) if key in claims else "y"), "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RevealScreen), what="the reveal")
        reveal = app.screen
        assert isinstance(reveal, RevealScreen)
        assert reveal.answer.measured["fewer_compiled"] == 0 and reveal.answer.right("fewer_compiled")
        assert reveal.answer.points == len(dialog.quantities), "every claim of lesson 24, each line's too, right"
        counts = shown_text(reveal.query_one("#reveal-counts"))
        assert "compiled runs fewer" in counts and "eager launches of line 40" in counts


def test_a_preview_asks_the_claims_a_gpu_makes() -> None:
    """A CUDA preview generates a GPU's code: its lesson claims (and questions) are the ``cuda`` ones, which the
    engine checks it against; before, the explorer read a preview's claims as the shared ones alone."""
    for lesson in LESSONS:
        info = read_scenario(lesson)
        assert info.claims_for("cuda-preview") == info.claims_for("cuda"), lesson.name
