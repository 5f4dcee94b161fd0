"""The explorer's parts without an app: source cutting, run progress, wording, chart ticks, replay."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from support.replay import Recording, _replayed
from support.ui_support import ADD_RELU, DATA, RECORDINGS

from kernel_tui.model.report.report import ScenarioError, ScenarioReport, SweepPoint
from kernel_tui.model.report.report_schema import checked_report
from kernel_tui.transport import protocol
from kernel_tui.transport.protocol import StageStartedMessage, SweepPointMessage
from kernel_tui.transport.run_record import RunRecord
from kernel_tui.ui.link.messages import EngineSaid, RunEnded
from kernel_tui.ui.state.course.catalog import Catalog, ScenarioEntry, load_catalog
from kernel_tui.ui.state.course.source import scenario_source
from kernel_tui.ui.state.run_state import RunBook, RunStatus, ScenarioRun
from kernel_tui.ui.view import describe
from kernel_tui.ui.widgets.charts.runtime_lines import _thin, time_ticks


class TestSource:
    """fn and inputs are cut out of the file with their own line numbers, never executed."""

    def test_fn_then_inputs_with_decorators_and_line_numbers(self) -> None:
        source = (
            '"""T\n\nL"""\nimport torch\n\n\ndef inputs(size, device):\n    return (torch.ones(size),)\n\n\n'
            "@torch.no_grad()\ndef fn(a):\n    return a + 1\n\n\nraise SystemExit('never run')\n"
        )
        pieces = scenario_source(source)
        assert [piece.name for piece in pieces] == ["fn", "inputs"]
        assert pieces[0].first_line == 11 and pieces[0].code.startswith("@torch.no_grad()")
        assert pieces[1].first_line == 7 and pieces[1].code.endswith("return (torch.ones(size),)")

    def test_a_file_that_does_not_parse_gives_nothing(self) -> None:
        assert scenario_source("def fn(:\n") == []


class TestCatalog:
    def test_unreadable_files_get_an_entry_with_the_reason(self, tmp_path: Path) -> None:
        bad = tmp_path / "bad.py"
        bad.write_text('"""Bad"""\nEXPECT = {"nonsense": 1}\n')
        good, broken = load_catalog([ADD_RELU, bad], course=None)
        assert good.info is not None and good.title == "Add, then ReLU" and good.user_file
        assert broken.info is None and broken.read_error is not None and broken.read_error.line == 2
        assert broken.title == "bad.py"

    def test_files_in_the_course_folder_are_not_marked_as_the_learners(self) -> None:
        (entry,) = load_catalog([ADD_RELU], course=DATA)
        assert not entry.user_file


class TestRunState:
    def test_progress_goes_through_the_stages_then_one_step_per_sweep_size(self) -> None:
        run = ScenarioRun(RunRecord(1, Path("x.py"), sweep=True), started_at=0.0)
        assert run.progress() == (0.0, 7)
        run.take(StageStartedMessage(1, "compile", ""), 0.0)
        assert run.progress() == (3.0, 7)
        run.take(StageStartedMessage(1, "timing", ""), 0.0)
        assert run.progress() == (5.0, 7)
        run.take(StageStartedMessage(1, "sweep", "4 sizes", total=4), 0.0)
        assert run.record.sweep_total == 4
        assert run.progress() == (6.0, 10)
        run.take(SweepPointMessage(1, SweepPoint(1024, 1.0, 2.0)), 0.0)
        assert run.progress() == (7.0, 10)

    def test_without_sweep_there_is_no_sweep_step(self) -> None:
        run = ScenarioRun(RunRecord(1, Path("x.py"), sweep=False), started_at=0.0)
        run.take(StageStartedMessage(1, "profile", ""), 0.0)
        assert run.progress() == (4.0, 6)
        run.take(StageStartedMessage(1, "timing", ""), 0.0)
        assert run.progress() == (5.0, 6)

    def test_cancel_is_not_an_error(self) -> None:
        run = ScenarioRun(RunRecord(1, Path("x.py"), sweep=False), started_at=0.0)
        run.ended_without_report(ScenarioError("engine", "killed"), 2.0, cancelled=True)
        assert run.status is RunStatus.CANCELLED and run.record.error is None and run.elapsed(99.0) == 2.0


class TestWording:
    def test_error_line_names_file_line_and_stage(self) -> None:
        error = ScenarioError("eager", "TypeError: bad\nmore", 9, "/somewhere/deep/broken_fn.py", "tb")
        assert error.short_line() == "broken_fn.py:9: eager: TypeError: bad"

    def test_status_of_a_running_run_says_stage_time_and_how_to_cancel(self) -> None:
        run = ScenarioRun(RunRecord(1, Path("x.py"), sweep=False), started_at=10.0)
        run.take(StageStartedMessage(1, "compile", "torch.compile, first call"), 0.0)
        text = describe.status_text(run, now=22.4).plain
        assert text == "● compile · torch.compile, first call · 12 s · esc cancels"

    def test_details_include_traceback_graph_breaks_and_output(self) -> None:
        run = ScenarioRun(RunRecord(1, Path("x.py"), sweep=False), started_at=0.0)
        error = ScenarioError("eager", "TypeError: bad", 9, "x.py", "Traceback ...\nTypeError: bad")
        run.ended_without_report(error, 1.0)
        text = describe.details_text(run, output="hello from the scenario\n").plain
        assert "x.py:9: eager: TypeError: bad" in text
        assert "Traceback ..." in text
        assert "hello from the scenario" in text

    def test_repeated_output_lines_are_counted_not_repeated(self) -> None:
        assert describe.collapse_repeats("a\nhello\nhello\nhello\nb\nhello") == "a\nhello  (×3)\nb\nhello"


class TestChartTicks:
    def test_time_ticks_stay_inside_the_data(self) -> None:
        assert time_ticks(3.5, 1500.0) == [10.0, 100.0, 1000.0]
        assert time_ticks(3.5, 30.0) == [5.0, 10.0, 20.0]
        # A range holding a single round number is labelled at its ends instead.
        assert time_ticks(75.0, 140.0) == [75.0, 140.0]

    def test_narrow_charts_label_fewer_sizes(self) -> None:
        assert _thin([1, 2, 3, 4, 5, 6], 3) == [1, 3, 6]
        assert _thin([1, 2], 5) == [1, 2]


class TestMessages:
    """Every message of a real recording becomes a typed message; the replay drops the sweep on request."""

    def test_the_envelope_carries_each_protocol_message_as_it_is(self) -> None:
        recording = Recording.load(RECORDINGS[0])
        said = [EngineSaid(message, ADD_RELU) for message in recording.messages]
        assert [each.news for each in said] == list(recording.messages), "no twin: the protocol's own message"
        stage = said[0]
        assert isinstance(stage.news, protocol.StageStartedMessage)
        run_id = stage.news.run_id
        assert stage.can_replace(EngineSaid(protocol.StageStartedMessage(run_id, "inputs", ""), ADD_RELU))
        assert not stage.can_replace(EngineSaid(protocol.StageStartedMessage(run_id + 1, "inputs", ""), ADD_RELU))
        point = next(each for each in said if isinstance(each.news, protocol.SweepPointMessage))
        assert not point.can_replace(point), "sweep points are never replaced"
        ended = EngineSaid(RunEnded(run_id, ScenarioError("engine", "killed")), ADD_RELU)
        assert not stage.can_replace(ended) and not ended.can_replace(stage)

    @pytest.mark.parametrize("sweep", [True, False])
    def test_replay_without_sweep_leaves_out_the_sweep(self, sweep: bool, tmp_path: Path) -> None:
        recording = Recording.load(RECORDINGS[0])
        target = tmp_path / "ui_add_relu.py"
        messages = list(_replayed(recording, target, sweep))
        points = [m for m in messages if isinstance(m, protocol.SweepPointMessage)]
        assert len(points) == (6 if sweep else 0)
        assert isinstance(messages[-1], protocol.Done)
        assert messages[-1].report.scenario == str(target)
        assert bool(messages[-1].report.sweep) is sweep


class TestCatalogState:
    """The catalog owns the list and the current entry; the run book, the runs and the one running."""

    def test_put_replaces_by_path_or_stands_in_for_a_listed_file(self) -> None:
        add_relu, broken = load_catalog([ADD_RELU, DATA / "ui_broken_fn.py"], course=None)
        catalog = Catalog([add_relu])
        assert catalog.put(add_relu) == (0, False), "the same entry again changes nothing"
        assert catalog.put(broken) == (1, True) and catalog.paths() == [ADD_RELU, broken.path]
        stand_in = ScenarioEntry(Path("/drafts/edit-1.py"), None, True)
        assert catalog.put(stand_in, replaces=ADD_RELU) == (0, True)
        assert catalog.paths() == [stand_in.path, broken.path]

    def test_select_clamps_and_drop_keeps_the_current_entry_in_view(self) -> None:
        entries = load_catalog([ADD_RELU, DATA / "ui_broken_fn.py"], course=None)
        catalog = Catalog(list(entries))
        assert catalog.select(5) and catalog.index == 1 and not catalog.select(1)
        assert catalog.drop(ADD_RELU) and catalog.index == 0 and catalog.current == entries[1]
        assert not catalog.drop(entries[1].path), "the last entry stays"
        assert catalog.title_of(Path("gone.py")) == "gone.py"

    def test_run_book_listens_to_the_active_run_only(self) -> None:
        book = RunBook()
        first = book.start(1, ADD_RELU, sweep=False, now=0.0)
        assert book.live(first.record.run_id) is first
        assert book.cancel(1.0) is first and first.status is RunStatus.CANCELLED and book.active is None
        second = book.start(2, ADD_RELU, sweep=True, now=2.0)
        assert book.live(first.record.run_id) is None, "a cancelled run's messages are dropped"
        assert book[ADD_RELU] is second and second.record.run_id != first.record.run_id and len(book) == 1
        book.ended(second)
        assert book.active is None and book.mark(ADD_RELU, lambda report: False) == "running"
        assert book.mark(Path("never-run.py"), lambda report: False) is None


class TestClaimsAtAnotherSize:
    """Lesson 28 says "set SIZE = 2**22 and run again": its claims at 8 elements then failed, the status read
    "✗ 2 claims did not hold … d details", and d listed no claim."""

    @staticmethod
    def report(size: int) -> ScenarioReport:
        from support.hostile_results import template

        data = template()
        data["size"] = size
        data["expect"] = {
            "eager": {"claimed": 2, "measured": 2, "ok": True},
            "compiled_overhead_dominates": {"claimed": 1, "measured": 0, "ok": False},
        }
        return ScenarioReport.from_dict(checked_report(data))

    def test_a_claim_failing_at_another_size_is_not_graded_and_says_what_it_measured(self) -> None:
        from kernel_tui.model.scenario.expect import check_claims

        claims = {"eager": 2.0, "compiled": 5.0}  # the recording measured 2 and 1
        at_its_size = check_claims(claims, self.report(8), swept=False, claimed_size=8)
        assert at_its_size["compiled"].failed, "at the lesson's own size it still fails"
        elsewhere = check_claims(claims, self.report(2**22), swept=False, claimed_size=8)
        assert elsewhere["eager"].ok is True
        assert elsewhere["compiled"].ok is None
        assert "claimed at 8 elements (SIZE); at 4,194,304 it measured 1, not graded" in (
            elsewhere["compiled"].reason or ""
        )

    def test_details_list_every_claim(self) -> None:
        run = ScenarioRun(RunRecord(1, Path("x.py"), sweep=False), started_at=0.0)
        run.record = replace(run.record, report=self.report(8))
        text = describe.details_text(run).plain
        assert "Claims" in text
        assert "✗ compiled_overhead_dominates: claimed 1, measured 0" in text and "✓ eager: claimed 2" in text
