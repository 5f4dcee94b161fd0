"""Data from strangers stays data (issue 22, files and text): a results file, a scenario file or a file name
can neither drive the terminal, nor be read as markup, nor crash or hang ``view``, ``--baseline``, ``list``.

Every crafted file is made here, by ``hostile_results`` (no committed blobs).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.hostile_results import (
    BAD_NUMBERS,
    CONTROL_BYTES,
    HOSTILE_TEXT,
    bad_number_lines,
    deeply_nested,
    template,
    with_error,
    with_text,
    write_lines,
    wrong_types,
)
from support.locations import REPO
from support.ui_support import ADD_RELU, explorer, finished, wait_for

from kernel_tui.commands.cli import main
from kernel_tui.commands.exits import EXIT_USAGE
from kernel_tui.model.names.safe_text import is_safe, safe_line, safe_text
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.scenario_file import MAX_ITEMS, ScenarioFileError, parse_scenario
from kernel_tui.model.storage.results_file import ResultsFileError, read_results
from kernel_tui.text.baseline import compare
from kernel_tui.ui.app.view_app import build_view_app
from kernel_tui.ui.link.view_link import saved_reports
from kernel_tui.ui.screens.dialogs.details import DetailsScreen
from kernel_tui.ui.screens.dialogs.kernel_code import SHOWN_LINES, KernelCodeScreen, shown_code
from kernel_tui.ui.widgets.kernel_table import KernelTable

SCENARIO_TEXT = HOSTILE_TEXT.replace("\x00", "").replace("\r", "")
"""A Python file cannot hold a NUL, and Python reads a CR as the end of a line."""
WIDE = (160, 48)
MARKUP = ("[/]", "[link=https://evil.example]x[/link]", "[blink]b[/blink]")
"""As the crafted text holds it, and as it must be shown: literally."""


def screen_text(app: Any) -> str:
    """Every character of the app's current screen, line by line, as the terminal gets it (dialogs included)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


class TestSafeText:
    def test_every_control_character_but_newline_and_tab_becomes_a_visible_stand_in(self) -> None:
        shown = safe_text(HOSTILE_TEXT + "\n\tkept\r\n")
        assert is_safe(shown) and not is_safe(HOSTILE_TEXT)
        assert "␛]52;c;cHduZWQ=␇" in shown and "\n\tkept\n" in shown
        assert all(markup in shown for markup in MARKUP), "markup is left as text: widgets never parse it"

    def test_ordinary_text_is_unchanged(self) -> None:
        title = "out[i] = x[idx[i]] and a[b] · ünïcødé → 3×"
        assert safe_text(title) == title and safe_line(title) == title

    def test_a_line_has_no_newline(self) -> None:
        assert safe_line("a\nb\tc\x1b") == "a b c␛"


def write(tmp_path: Path, *objects: Any, name: str = "crafted.jsonl") -> Path:
    return write_lines(tmp_path / name, *objects)


def refused_line(capsys: pytest.CaptureFixture[str], arguments: list[str]) -> str:
    """The one line a refused ``kernel-tui`` command prints (exit 2, no traceback)."""
    assert main(arguments) == EXIT_USAGE
    err = capsys.readouterr().err
    (line,) = err.splitlines()
    assert "Traceback" not in err and is_safe(line)
    return line


class TestMalformedResultsAreRefusedInOneLine:
    @pytest.mark.parametrize("name", list(BAD_NUMBERS))
    def test_numbers_json_allows_but_no_report_holds(
        self, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        (line,) = (changed for number, changed in bad_number_lines() if number == name)
        path = write(tmp_path, line)
        for command in (["view", str(path)], ["run", "--baseline", str(path), str(ADD_RELU)]):
            assert f"{path}: line 1" in refused_line(capsys, command)

    def test_json_nested_100000_deep(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        path = write(tmp_path, deeply_nested())
        for command in (["view", str(path)], ["run", "--baseline", str(path), str(ADD_RELU)]):
            assert f"{path}: line 1 is nested too deeply" in refused_line(capsys, command)

    def test_a_wrong_type_in_any_field_names_the_field(self, tmp_path: Path) -> None:
        checked = 0
        for where, crafted in wrong_types():
            path = write(tmp_path, crafted)
            try:
                reports = read_results(path)
            except ResultsFileError as error:
                message = str(error)
                assert f"{path}: line 1: not a kernel-tui report ({where}" in message, message
                assert "\n" not in message
                checked += 1
                continue
            # Accepted only where the value has the field's own type (text in a text field): then it is usable.
            (report,) = reports
            compare(report, report)
        assert checked >= 150

    def test_a_second_bad_line_is_named_by_its_number(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        bad = dict(template(), eager={"kernel_count": 1, "kernels": "x", "bytes_total": None, "time_us": None})
        path = write(tmp_path, template(), bad)
        line = refused_line(capsys, ["view", str(path)])
        assert f"{path}: line 2: not a kernel-tui report (eager.kernels: is text 'x', not a list)" in line

    def test_the_engine_protocol_checks_reports_too_but_lets_an_unmeasured_time_be_nan(self) -> None:
        from kernel_tui.transport import protocol

        report = dict(template(), title="a\x1b]2;t\x07")
        report["eager"]["time_us"] = float("nan")
        done = {"type": "done", "protocol": protocol.PROTOCOL_VERSION, "run_id": 1, "restart": False}
        line = json.dumps({**done, "report": report})
        message = protocol.decode(line)
        assert isinstance(message, protocol.Done) and message.report.title == "a␛]2;t␇"
        report["eager"]["kernels"] = [{"name": 3}]
        with pytest.raises(protocol.ProtocolError, match="eager.kernels.0.name"):
            protocol.decode(json.dumps({**done, "report": report}))


class TestViewReadsNothingAReportNames:
    @pytest.mark.engine
    @pytest.mark.parametrize("named", ["/dev/zero", "/dev/tty", "fifo"])
    def test_a_report_without_source_never_opens_its_scenario_path(self, named: str, tmp_path: Path) -> None:
        if named == "fifo":
            named = str(tmp_path / "fifo.py")
            os.mkfifo(named)  # opened for reading, it would block the view before its first frame
        path = write(tmp_path, dict(template(), scenario=named, source=None))
        code = textwrap.dedent(
            f"""
            from kernel_tui.commands import cli
            from kernel_tui.ui.app.view_app import SavedResultsApp

            run = SavedResultsApp.run
            SavedResultsApp.run = lambda self: run(self, headless=True)
            raise SystemExit(cli.main(["view", {str(path)!r}]))
            """
        )
        env = {**os.environ, "KERNEL_TUI_EXIT_AFTER_FIRST_FRAME": "1"}
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=60
        )
        assert result.returncode == 0, result.stderr

    async def test_its_saved_run_still_shows_and_the_lesson_says_why_there_is_no_text(self, tmp_path: Path) -> None:
        path = write(tmp_path, dict(template(), scenario="/dev/zero", source=None))
        app = build_view_app(saved_reports(read_results(path), path), clock=lambda: 1000.0, predict=False)
        async with app.run_test(size=WIDE) as pilot:
            (entry,) = explorer(app).catalog.entries
            assert "carry no source" in str(entry.read_error)
            await pilot.press("r")
            await wait_for(pilot, lambda: finished(app, Path("/dev/zero")), what="the saved run")
            assert len(explorer(app).query_one("#eager", KernelTable).kernels) == 2


class TestNotAFile:
    @pytest.mark.parametrize(
        ("command", "target"),
        [(command, target) for command in ("list", "run", "view") for target in ("/dev/zero", "fifo")]
        + [("view", "folder")],  # list and run take folders
    )
    def test_refused_at_once_in_one_line(
        self, command: str, target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        if target == "fifo":
            target = str(tmp_path / "fifo.py")
            os.mkfifo(target)
        elif target == "folder":
            target = str(tmp_path)
        arguments = [command, target] if command != "run" else ["run", "--json", "--timeout", "5", target]
        code: int | str | None
        try:
            code = main(arguments)
        except SystemExit as usage_error:  # argparse's way: its usage line, then ours
            code = usage_error.code
        assert code == EXIT_USAGE
        err = capsys.readouterr().err
        assert "Traceback" not in err and target in err
        assert "not a file or a folder" in err or "not a regular file" in err

    @pytest.mark.parametrize("command", ["list", "run"])
    def test_a_folder_with_no_scenario_beside_a_file_is_refused_by_name(
        self, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A folder named like a scenario (``dir.py``), next to a real one: the run reported on the one file and
        said nothing of the folder."""
        folder = tmp_path / "dir.py"
        folder.mkdir()
        arguments = [command, str(ADD_RELU), str(folder)]
        if command == "run":
            arguments[1:1] = ["--json", "--timeout", "5"]
        with pytest.raises(SystemExit) as usage_error:
            main(arguments)
        assert usage_error.value.code == EXIT_USAGE
        err = capsys.readouterr().err
        assert err.splitlines()[-1] == f"kernel-tui: error: no scenario files in {folder}"
        assert str(ADD_RELU) not in err

    def test_a_huge_scenario_is_refused_not_read_whole(self, tmp_path: Path) -> None:
        huge = tmp_path / "huge.py"
        with huge.open("wb") as file:
            file.truncate(64 * 2**20)  # sparse: 64 MiB of NULs, no disk spent
        from kernel_tui.model.scenario.scenario_file import read_scenario

        with pytest.raises(ScenarioFileError, match="too large"):
            read_scenario(huge)

    def test_a_huge_results_file_is_refused(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        from kernel_tui.model.storage import results_file

        monkeypatch.setattr(results_file, "RESULTS_LIMIT", 1000)
        path = write(tmp_path, template())
        assert "too large" in refused_line(capsys, ["view", str(path)])

    def test_a_results_file_of_hundreds_of_megabytes_is_refused_before_it_is_read(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """180-212 MB results files froze ``view`` for minutes and took 1-4 GB: the limit was 512 MiB."""
        path = write(tmp_path, template())
        with path.open("r+b") as grown:
            grown.truncate(200 * 2**20)  # sparse: as large as the user's, written in no time
        assert "too large: 209,715,200 bytes" in refused_line(capsys, ["view", str(path)])


class TestScenarioLiteralsAreBounded:
    def test_a_repr_bomb_is_refused_before_anything_prints_it(self) -> None:
        bomb = "[0]*99"
        for _ in range(6):
            bomb = f"[{bomb}]*99"
        source = f'"""Bomb"""\nEXPECT = {{"eager": {bomb}}}\ndef fn(a):\n    return a\n'
        with pytest.raises(ScenarioFileError, match=f"more than {MAX_ITEMS:,} items"):
            parse_scenario(source, Path("bomb.py"))

    def test_a_sum_of_large_lists_is_refused_at_the_first_partial_sum_over_the_bound(self) -> None:
        terms = " + ".join(["[1]*99999"] * 400)
        with pytest.raises(ScenarioFileError, match="SIZES must be a literal: more than"):
            parse_scenario(f'"""Sizes"""\nSIZES = {terms}\n', Path("sizes.py"))

    def test_lists_under_the_bound_still_read(self) -> None:
        info = parse_scenario('"""S"""\nSIZES = [1, 2] * 1000 + [3]\nEXPECT = {"eager": 2}\n', Path("s.py"))
        assert info.sizes == (1, 2, 3) and info.expect == {"eager": 2}


class TestScenarioTextIsSafe:
    def test_a_title_with_markup_and_escapes_is_shown_as_written_by_list(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("COLUMNS", "400")  # one row per scenario: the title is not wrapped
        path = tmp_path / "t.py"
        path.write_text(f'"""out[i] = x[idx[i]] and a[b] {SCENARIO_TEXT}\n\nLesson \x1b]52;c;eA==\x07."""\n')
        info = parse_scenario(path.read_text(), path)
        assert is_safe(info.title) and is_safe(info.lesson)
        assert main(["list", str(path)]) in (0, 1)
        out = capsys.readouterr().out
        assert is_safe(out) and f"out[i] = x[idx[i]] and a[b] {safe_text(SCENARIO_TEXT)}" in out

    def test_an_escape_in_a_file_name_is_shown_as_a_stand_in(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("COLUMNS", "400")
        path = tmp_path / "a\x1b]2;x\x07[b].py"
        path.write_text('"""T [/]"""\n')
        main(["list", str(path)])
        out = capsys.readouterr().out
        assert is_safe(out) and "a␛]2;x␇[b].py" in out and "T [/]" in out


class TestNamesAreOpenedAsWritten:
    """A file name holding U+202E, U+200B or ESC is shown by its stand-ins and used by its real name: a shown form
    never stands for a path, and a path is compared with a shown form only as its shown form."""

    NAMES = ("a\u202eb.py", "zero\u200bwidth.py", "esc\x1b]2;x\x07.py")

    def test_a_run_request_keeps_the_paths_it_names(self) -> None:
        from kernel_tui.transport.protocol import RunRequest, decode, encode

        for name in self.NAMES:
            request = RunRequest(run_id=1, path=f"/tmp/{name}", trace_dir=f"/tmp/{name}.d")
            assert decode(encode(request)) == request, "a path is a name to open, not text to show"

    def test_the_editor_marks_the_line_of_an_error_in_a_file_so_named(self, tmp_path: Path) -> None:
        from kernel_tui.model.report.report import ScenarioError
        from kernel_tui.ui.screens.snippets import error_note

        for name in self.NAMES:
            path = tmp_path / name
            # The engine's error names the file as shown (every string it sends is made safe to show).
            error = ScenarioError("eager", "NameError: x", line=3, file=safe_text(str(path)))
            assert "line 3" in error_note(error, path).plain, ascii(name)

    @pytest.mark.engine
    def test_run_measures_each_file_so_named(self, tmp_path: Path) -> None:
        for name in self.NAMES:
            (tmp_path / name).write_text(ADD_RELU.read_text())
        result = subprocess.run(
            [sys.executable, "-m", "kernel_tui", "run", "--json", "--no-time", "--size", "4096", str(tmp_path)],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=600,
        )
        assert result.returncode == 0, result.stderr
        reports = [json.loads(line) for line in result.stdout.splitlines()]
        assert sorted(report["scenario"] for report in reports) == sorted(
            safe_text(str(tmp_path / name)) for name in self.NAMES
        ), "each report names its file as shown"
        assert all(report["error"] is None for report in reports), [report["error"] for report in reports]


class TestHostileTextInTheView:
    @pytest.mark.parametrize("crafted", [with_text, with_error], ids=["text", "error"])
    async def test_every_screen_shows_it_literally_and_no_control_character(
        self, crafted: Callable[[str], dict[str, Any]], tmp_path: Path
    ) -> None:
        path = write(tmp_path, crafted(HOSTILE_TEXT))
        (report,) = read_results(path)
        app = build_view_app(saved_reports((report,), path), clock=lambda: 1000.0, predict=False)
        async with app.run_test(size=WIDE) as pilot:
            screen = explorer(app)
            assert "Add, then ReLU a␛]52" in screen_text(app)
            await pilot.press("r")
            await wait_for(pilot, lambda: finished(app, Path(report.scenario)), what="the saved run")
            shown = screen_text(app)
            assert not any(byte in shown for byte in CONTROL_BYTES)
            assert "aten::add a␛]52;c;cHduZWQ=␇b" in shown
            screen.query_one("#compiled", KernelTable).focus()
            await pilot.press("g")
            await wait_for(pilot, lambda: isinstance(app.screen, KernelCodeScreen), what="the code dialog")
            shown = screen_text(app)
            assert "[link=https://evil.example]x[/link]" in shown and not any(b in shown for b in CONTROL_BYTES)
            await pilot.press("escape", "d")
            await wait_for(pilot, lambda: isinstance(app.screen, DetailsScreen), what="the details")
            assert not any(byte in screen_text(app) for byte in CONTROL_BYTES)
            await pilot.press("escape", "v")
            # The dialog's table fills in after it mounts: read it once it is there, not a frame's time after v.
            await wait_for(pilot, lambda: "v a␛]52;c;cHduZWQ=␇b" in screen_text(app), what="the variants dialog")
            shown = screen_text(app)
            assert "v a␛]52;c;cHduZWQ=␇b" in shown and "[link=https://evil.example]x[/link]" in shown
            await pilot.press("escape", "4", "2", "B")
            await pilot.pause()
            assert all(is_safe(notice.message) for notice in app._notifications)
        assert app.return_code in (None, 0)

    def test_baseline_output_shows_it_literally(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        from kernel_tui.commands.cli_output import stdout_console
        from kernel_tui.text.render import baseline_view, scenario_view

        path = write(tmp_path, with_error(HOSTILE_TEXT))
        (old,) = read_results(path)
        new = ScenarioReport.from_dict(template())
        console = stdout_console()
        console.print(scenario_view(old, console.width))
        console.print(baseline_view(compare(old, new), new.scenario, str(path)))
        out = capsys.readouterr().out
        assert is_safe(out) and "[/]" in out and "[blink]" in out.replace("\n", "")


class TestUnboundedWork:
    def test_only_the_head_of_a_huge_kernel_is_highlighted(self) -> None:
        code = "x = 1\n" * 3_000_000
        shown, left_out = shown_code(code)
        assert shown.count("\n") + 1 == SHOWN_LINES and left_out is not None and "3,000,001 lines" in left_out
        assert shown_code("a\nb\n") == ("a\nb", None)

    async def test_g_on_a_kernel_of_20_mb_shows_its_head_and_esc_closes_it(self, tmp_path: Path) -> None:
        report = template()
        report["compiled"]["kernels"][0]["code"] = "int x = 1; // generated\n" * 800_000
        path = write(tmp_path, report)
        app = build_view_app(saved_reports(read_results(path), path), clock=lambda: 1000.0, predict=False)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("r")
            await wait_for(pilot, lambda: finished(app, Path(report["scenario"])), what="the saved run")
            explorer(app).query_one("#compiled", KernelTable).focus()
            await pilot.press("g")
            await wait_for(pilot, lambda: isinstance(app.screen, KernelCodeScreen), timeout=60, what="the code")
            assert "showing the first 1,000 of 800,001 lines" in screen_text(app)
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, KernelCodeScreen), what="the dialog to close")


class TestAHundredCraftedFiles:
    """What the issue asks of ``view`` and ``--baseline`` on a folder of a hundred crafted files: each is refused
    in one line or shown, and nothing crashes, hangs or shows a control character."""

    @pytest.fixture(scope="class")
    def crafted(self, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
        from support.hostile_results import hundred_files

        return hundred_files(tmp_path_factory.mktemp("hundred"))

    def test_each_is_refused_in_one_line_by_view_and_baseline_or_read(
        self, crafted: list[Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        assert len(crafted) == 100
        read = 0
        for path in crafted:
            try:
                reports = read_results(path)
            except ResultsFileError:
                for command in (["view", str(path)], ["run", "--baseline", str(path), str(ADD_RELU)]):
                    assert str(path) in refused_line(capsys, command)
                continue
            read += 1
            for report in reports:
                compare(report, report)
        assert read >= 5, "the files with hostile text, and those whose value fits its field, are shown"

    @pytest.mark.long  # an app per readable file: the fast tier opens the hostile texts in the view's screens
    async def test_the_view_opens_every_one_it_reads_and_r_g_d_work(self, crafted: list[Path]) -> None:
        for path in crafted:
            try:
                saved = saved_reports(read_results(path), path)
            except ResultsFileError:
                continue
            app = build_view_app(saved, clock=lambda: 1000.0, predict=False)
            async with app.run_test(size=WIDE) as pilot:
                await pilot.press("r")
                shown_path = saved[0].path
                await wait_for(pilot, functools.partial(finished, app, shown_path), what=f"{path.name}'s saved run")
                explorer(app).query_one("#compiled", KernelTable).focus()
                await pilot.press("g")
                await pilot.pause()
                shown = screen_text(app)
                await pilot.press("escape", "d")
                await pilot.pause()
                shown += screen_text(app)
                await pilot.press("escape", "4")
                await pilot.pause()
                shown += screen_text(app)
                assert not any(byte in shown for byte in CONTROL_BYTES), path.name
            assert app.return_code in (None, 0), path.name


def test_no_widget_title_or_toast_is_built_as_markup() -> None:
    """The mechanism, checked in the source: a border title given as a ``str`` is parsed as markup by Textual,
    so every one that is not a literal is wrapped in ``Content``; and the app's ``notify`` never parses markup."""
    import ast

    from kernel_tui.ui.app.app import KernelTuiApp

    offenders = []
    for path in (REPO / "kernel_tui" / "ui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Assign) or not isinstance(node.targets[0], ast.Attribute):
                continue
            if node.targets[0].attr not in ("border_title", "border_subtitle"):
                continue
            value = node.value
            literal = isinstance(value, ast.Constant) or (
                isinstance(value, ast.Name) and value.id.isupper()  # a module's constant
            )
            wrapped = isinstance(value, ast.Call) and getattr(value.func, "id", "") == "Content"
            if not (literal or wrapped):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not offenders, f"a border title built from a str is read as markup: {', '.join(offenders)}"
    assert "markup=False" in __import__("inspect").getsource(KernelTuiApp.notify)


async def test_the_explorer_opens_a_folder_holding_a_hostile_title_and_file_name(tmp_path: Path) -> None:
    from support.ui_support import make_app

    titled = tmp_path / "titled.py"
    titled.write_text(f'"""out[i] = x[idx[i]] and a[b] {SCENARIO_TEXT}\n\nThe lesson [/] \x1b]52;c;eA==\x07."""\n')
    named = tmp_path / "n\x1b]2;x\x07[b].py"
    named.write_text("import torch\nSIZE = 'big'\n")  # unreadable: listed by its file name, with the reason
    app = make_app(paths=(titled, named))
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("2")
        await pilot.pause()
        shown = screen_text(app)
        assert "out[i] = x[idx[i]] and a[b] a␛]52;c;cHduZWQ=␇b" in shown and "n␛]2;x␇[b].py" in shown
        assert not any(byte in shown for byte in CONTROL_BYTES)
        await pilot.press("n")
        await pilot.pause()
        assert not any(byte in screen_text(app) for byte in CONTROL_BYTES)
