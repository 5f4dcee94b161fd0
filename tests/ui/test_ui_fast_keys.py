"""Keys faster than the explorer can show them (issue 24): ``n`` held down or pressed forty times ends on the
right lesson with that lesson's text alone, no stale update lands after it, nothing piles up, and quitting
prints no traceback."""

from __future__ import annotations

import asyncio
import gc

import pytest
from support.snippet_support import SMALL, WIDE, crashed_draft, new_snippet, snippet_link, text_area
from support.snippet_support import quick_timers as quick_timers  # autouse: faster autosave here too
from support.ui_support import ADD_RELU, DATA, explorer, make_app, wait_for
from textual import events
from textual.pilot import Pilot
from textual.widgets import Markdown

from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.scenario_file import find_scenarios
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.screens.explorer import ExplorerScreen
from kernel_tui.ui.state.snippets.drafts import DraftStore
from kernel_tui.ui.widgets.lesson_view import LessonView, lesson_markdown
from kernel_tui.ui.widgets.snippet_text import SnippetTextArea

COURSE = tuple(find_scenarios([course_dir()]))
KEYS = ["n"] * 30 + ["p"] * 10
"""Forty presses: past the end of the course (where ``n`` stops) and back."""


def where_keys_end(keys: list[str], count: int) -> int:
    index = 0
    for key in keys:
        index = max(0, min(count - 1, index + (1 if key == "n" else -1)))
    return index


def dom_size(app: KernelTuiApp) -> int:
    return sum(1 for _ in app.screen.walk_children(with_self=True))


async def lesson_in_markdown(pilot: Pilot[None]) -> tuple[ExplorerScreen, LessonView]:
    """The explorer and its lesson pane, once the pane shows its lesson as Markdown (after the first frame)."""
    screen = explorer(pilot.app)
    lesson = screen.query_one("#lesson", LessonView)
    await wait_for(pilot, lambda: bool(lesson.query("#lesson-text")), what="the Markdown")
    return screen, lesson


async def settle(pilot: Pilot[None], lesson: LessonView) -> None:
    await wait_for(pilot, lambda: not lesson._markdown_busy, what="the lesson's update")
    await pilot.pause(0.2)


async def test_forty_fast_presses_of_n_end_on_the_right_lesson_with_its_text_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    app = make_app(paths=COURSE, course=course_dir())
    async with app.run_test(size=(120, 36)) as pilot:
        screen, lesson = await lesson_in_markdown(pilot)
        await settle(pilot, lesson)
        blocks_at_start = len(lesson.query_one(Markdown).children)
        nodes_at_start = dom_size(app)
        # All forty at once, as a terminal delivers a held key to a busy app: none waits for the one before.
        for key in KEYS:
            assert app._driver is not None
            app._driver.send_message(events.Key(key, key))
        await pilot.pause()
        await settle(pilot, lesson)
        expected = screen.catalog.entries[where_keys_end(KEYS, len(COURSE))]
        assert screen.catalog.current is expected and screen.index == screen.catalog.index
        assert lesson.border_title == f"Lesson: {expected.title}"
        markdown = lesson.query_one(Markdown)
        hidden = screen.why.hides_explanation()
        assert lesson.lesson == lesson_markdown(expected, hide_explanation=hidden) and markdown.source == lesson.lesson
        # No older lesson's blocks left behind: showing the same lesson afresh gives the same blocks.
        blocks = len(markdown.children)
        lesson.show(expected, hide_explanation=hidden)
        await settle(pilot, lesson)
        assert len(markdown.children) == blocks and markdown.source == lesson.lesson
        # Back at the first lesson, the screen holds what it held there before.
        for _ in range(len(COURSE)):
            assert app._driver is not None
            app._driver.send_message(events.Key("p", "p"))
        await pilot.pause()
        await settle(pilot, lesson)
        assert screen.catalog.index == 0 and len(markdown.children) == blocks_at_start
        gc.collect()
        assert dom_size(app) == nodes_at_start
        # Quit while an update may still be in flight.
        assert app._driver is not None
        app._driver.send_message(events.Key("n", "n"))
    await asyncio.sleep(0.1)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out and "CancelledError" not in captured.err + captured.out
    assert app.return_code in (0, None)


async def test_n_held_down_keeps_up_and_each_move_lands_where_the_keys_say() -> None:
    """Keys 50 ms apart, as a terminal repeats a held key: the list's own echo of a move that arrives after the
    next key must not pull the screen back (it did: the header on lesson 8, the text on 5, 6, 7, 9)."""
    app = make_app(paths=COURSE, course=course_dir())
    async with app.run_test(size=(120, 36)) as pilot:
        screen, lesson = await lesson_in_markdown(pilot)
        shown: list[int] = []
        start, derive = screen.index, screen.derive_shown

        def counted() -> None:
            # Each scenario the funnel shows, once per change of it.
            derive()
            if screen.shown is not None and (shown or [start])[-1] != screen.shown.scenarios.index:
                shown.append(screen.shown.scenarios.index)

        screen.derive_shown = counted  # type: ignore[method-assign]
        keys = ["n"] * 12 + ["p"] * 5
        for key in keys:
            assert app._driver is not None
            app._driver.send_message(events.Key(key, key))
            await asyncio.sleep(0.05)
        await pilot.pause()
        await settle(pilot, lesson)
        assert screen.catalog.index == screen.index == where_keys_end(keys, len(COURSE))
        # Never back to a scenario the keys had left: the indices shown go up, then down, as the keys did.
        turn = shown.index(max(shown))
        assert shown[: turn + 1] == sorted(shown[: turn + 1]) and shown[turn:] == sorted(shown[turn:], reverse=True)
        assert len(shown) <= len(keys)
        assert lesson.border_title == f"Lesson: {screen.catalog.current.title}"


async def test_a_lesson_update_in_flight_when_the_text_is_removed_ends_quietly() -> None:
    """A held ``n`` queues the next lesson behind the update in flight; Textual removes the lesson pane's
    children before the pane itself (the app quitting; a layout switch did, when it recomposed the screen). The
    update's next round found no ``#lesson-text`` and the app ended with ``WorkerFailed`` (the tmux storm of
    3 December)."""
    app = make_app(paths=COURSE, course=course_dir())
    async with app.run_test(size=(120, 36)) as pilot:
        screen, lesson = await lesson_in_markdown(pilot)
        await settle(pilot, lesson)
        lesson.show(screen.catalog.entries[1])
        lesson.show(screen.catalog.entries[2])  # kept for when the update in flight ends
        assert lesson._markdown_busy
        await lesson.query_one("#lesson-text", Markdown).remove()
        await wait_for(pilot, lambda: not lesson._markdown_busy, what="the update to end")
        await pilot.press("n")
        await wait_for(pilot, lambda: screen.catalog.index == 1, what="the next lesson")
    assert app.return_code in (0, None)


# -- keys pressed while a screen or a pane opens (issue 58) ------------------------------------------------------


def send_keys(app: KernelTuiApp, keys: list[str]) -> None:
    """Keys as a terminal delivers fast typing: all queued at once, none waiting for the one before."""
    assert app._driver is not None
    for key in keys:
        app._driver.send_message(events.Key(key, key if len(key) == 1 else None))


def editor_text(app: KernelTuiApp) -> str:
    """The editor's text; empty until it has a text area."""
    found = explorer(app).query("#snippet-text")
    return found.first(SnippetTextArea).text if found else ""


TYPED = "rszxnpebd1234"
"""Letters the explorer binds (run, sweep, size, next, previous, edit, baseline, details, the panes), typed."""


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["wide", "small"])
async def test_every_key_typed_right_after_ctrl_n_is_in_the_editor(size: tuple[int, int]) -> None:
    """The letters after ctrl+n went to the explorer's bindings while the editor opened: the text was lost, ``r``
    ran the template and ``z`` opened the size prompt. They wait for the editor's focus now."""
    link = snippet_link()
    app = make_app(link, course=DATA)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: explorer(app).focused is not None, what="the list's focus")
        send_keys(app, ["ctrl+n", *TYPED])
        await wait_for(pilot, lambda: TYPED in editor_text(app), what="every letter in the editor")
        await pilot.pause(0.2)
        assert isinstance(app.screen, ExplorerScreen) and isinstance(app.focused, SnippetTextArea)
        assert text_area(app).text.count(TYPED) == 1 and text_area(app).cursor_location == (3, len(TYPED))
        assert not link.asked and not explorer(app).runs.values(), "no letter ran anything"
        assert explorer(app).run_size is None


async def test_keys_the_editor_binds_typed_as_it_opens_act_in_their_order() -> None:
    """ctrl+n, f7 (select all), delete and a line, typed at once: the text replaced the template. The kept keys were
    handed on together, and f7 and delete, which the editor leaves to its bindings, reached them after the letters
    had been typed: the line was selected and deleted with the template, the editor left empty."""
    app = make_app(snippet_link(), course=DATA)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for(pilot, lambda: explorer(app).focused is not None, what="the list's focus")
        send_keys(app, ["ctrl+n", "f7", "delete", *"x.exp()", "left", "left", *"2"])
        await wait_for(pilot, lambda: "x.exp(" in editor_text(app), what="the line in the editor")
        await pilot.pause(0.3)
        assert text_area(app).text == "x.exp2()"


async def test_keys_read_in_one_burst_by_the_editor_act_in_their_order() -> None:
    """A busy machine reads the keys typed meanwhile all at once: f7, delete and a line read together by an editor
    that had the focus left it empty, the line typed before the bindings selected and deleted everything."""
    app = make_app(snippet_link(), course=DATA)
    async with app.run_test(size=WIDE) as pilot:
        await new_snippet(pilot, "a.exp()\n")
        send_keys(app, ["f7", "delete", *"x.exp()", "left", "left", *"2", "end", "enter", *"y"])
        await wait_for(pilot, lambda: text_area(app).text.endswith("y"), what="the last key in the editor")
        await pilot.pause(0.3)
        assert text_area(app).text == "x.exp2()\ny"


async def test_what_is_typed_as_a_dialog_opens_is_its_answer() -> None:
    """A key and what follows it at once, for the dialogs that open on a text input: ``z`` and the size (the digits
    went to the explorer's pane keys 1-4 before the prompt's input had the focus, and Enter closed it empty), and
    ctrl+o and a path."""
    app = make_app(snippet_link(), course=DATA)
    async with app.run_test(size=WIDE) as pilot:
        screen = explorer(app)
        await wait_for(pilot, lambda: screen.focused is not None, what="the list's focus")
        send_keys(app, ["z", *"4096", "enter"])
        await wait_for(pilot, lambda: screen.run_size is not None, what="the size chosen")
        assert screen.run_size == 4096 and isinstance(app.screen, ExplorerScreen)
        send_keys(app, ["ctrl+o", *str(ADD_RELU), "enter"])
        await wait_for(pilot, lambda: screen.session.document is not None, what="the file opened")
        assert screen.session.document is not None and screen.session.document.origin == ADD_RELU


async def test_keys_at_start_up_go_to_the_drafts_offered_back_then_to_the_editor() -> None:
    """Keys from the first instant, before the explorer is mounted: they wait for the first focus, the drafts an
    earlier session left offered back (Esc and x reached that dialog before its widgets, and its ``on_mount`` found
    none: ``NoMatches``), and what follows ctrl+n is typed in the editor."""
    crashed_draft("a.exp()\n")
    crashed_draft("a.sin()\n")
    app = make_app(snippet_link(), course=DATA)
    keys = ["x", "escape", "ctrl+n", *"abc"]

    class EarlyKeys(type(app)):  # type: ignore[misc]
        def on_mount(self) -> None:
            send_keys(self, keys)  # before the explorer has composed, let alone mounted

    app.__class__ = EarlyKeys
    async with app.run_test(size=WIDE) as pilot:
        await wait_for(pilot, lambda: "abc" in editor_text(app), what="the letters in the editor")
        await pilot.pause(0.2)
        assert isinstance(app.screen, ExplorerScreen) and isinstance(app.focused, SnippetTextArea)
        drafts = DraftStore().drafts()
        assert len(drafts) == 2, "x discarded the newest draft offered back; the other and the new snippet's stay"
        assert "a.sin()" not in "".join(draft.path.read_text() for draft in drafts)
    assert app.return_code in (0, None)


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["wide", "small"])
async def test_keys_pressed_as_the_app_quits_crash_nothing(size: tuple[int, int]) -> None:
    """Keys read before ``q`` quit climbed back to the bindings once the screens were being taken down: ctrl+n
    filled an editor no longer attached (``MountError``, exit 1)."""
    app = make_app(snippet_link(), course=DATA)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: explorer(app).focused is not None, what="the list's focus")
        send_keys(app, ["q", "ctrl+n", *"rxyz", "ctrl+r", "ctrl+s", "z", "1", "ctrl+n", "e"])
        await pilot.pause(0.5)
    assert app.return_code == 0
