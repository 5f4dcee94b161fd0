"""The explorer's lines ask for a layout pass of the screen only when what they show changes.

``Static.update`` lays the whole screen out again even for the text it shows already; the editor's note under
the text was shown again on every key typed, which made two of every three layout passes of typing a line.
"""

from __future__ import annotations

import collections
from typing import Any

import pytest
from rich.console import Group
from rich.text import Text
from support.snippet_support import WIDE, new_snippet, snippet_link, type_text
from support.ui_support import make_app
from textual.app import App, ComposeResult
from textual.content import Content
from textual.widget import Widget

from kernel_tui.ui.widgets.steady_static import SteadyContent, SteadyStatic, look_of


class OneLine(App[None]):
    def compose(self) -> ComposeResult:
        yield SteadyStatic(id="line")


@pytest.fixture
def layouts_asked(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[str]:
    """Per widget id, how many times it asked for a layout pass since the test began counting (``counting``)."""
    asked: collections.Counter[str] = collections.Counter()
    refresh = Widget.refresh

    def counted(self: Widget, *regions: Any, layout: bool = False, **options: Any) -> Widget:
        if layout and asked["counting"]:
            asked[self.id or type(self).__name__] += 1
        return refresh(self, *regions, layout=layout, **options)

    monkeypatch.setattr(Widget, "refresh", counted)
    return asked


async def test_the_same_content_again_asks_for_no_layout(layouts_asked: collections.Counter[str]) -> None:
    app = OneLine()
    async with app.run_test() as pilot:
        line = app.query_one("#line", SteadyStatic)
        layouts_asked["counting"] = 1
        shows: list[SteadyContent] = [
            Text("x = 1", style="bold"),
            Text("x = 1", style="bold"),  # the same again: a new object, the same look
            Text("x = 1", style="red"),  # the same characters in another style: shown
            Content("x = 1"),
            Content("x = 1"),
            Group(Text("a"), Text("b")),
            Group(Text("a"), Text("b")),
            "plain",
            "plain",
        ]
        for content in shows:
            line.show_content(content)
        await pilot.pause()
        assert layouts_asked["line"] == 5
        assert str(line.render()) == "plain"
        line.update("shown some other way")
        line.show_content("plain")  # the look it had before: drawn again all the same
        await pilot.pause()
        assert str(line.render()) == "plain"


def test_a_look_tells_apart_what_equality_does_not() -> None:
    # ``Text ==`` and ``Content ==`` compare characters only: a line turning red would not be drawn.
    assert Text("ok", style="green") == Text("ok", style="red")
    assert look_of(Text("ok", style="green")) != look_of(Text("ok", style="red"))
    styled = Content("ok").stylize("bold")
    assert styled == Content("ok") and look_of(styled) != look_of(Content("ok"))
    # A group holding something that is not text cannot be compared: it is always shown again.
    assert look_of(Group(Text("a"), Group(Text("b")))) != look_of(Group(Text("a"), Group(Text("b"))))


async def test_typing_in_the_editor_lays_out_only_for_the_text(layouts_asked: collections.Counter[str]) -> None:
    app = make_app(snippet_link())
    async with app.run_test(size=WIDE) as pilot:
        await new_snippet(pilot, "x")
        layouts_asked["counting"] = 1
        await type_text(pilot, ".sin() + 1")
        await pilot.pause()
    # The note under the text changes when the draft is first written, not with each key.
    assert layouts_asked["editor-note"] <= 2, layouts_asked
