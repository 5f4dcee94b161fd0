"""The chart's modes are one registry: ``b`` cycles through it, and the chart asks the mode shown what to say."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest
from support.replay import Recording
from support.ui_support import RECORDINGS

from kernel_tui.model.report.report import SweepPoint
from kernel_tui.ui.widgets.charts import chart_modes
from kernel_tui.ui.widgets.charts.chart_modes import (
    CHART_MODES,
    ChartData,
    ChartMode,
    LegendEntry,
    Series,
    chart_mode,
    next_chart_mode,
)

RECORDING = Recording.load(RECORDINGS[0])
POINTS = [message for message in RECORDING.messages if hasattr(message, "point")]


def test_b_cycles_through_every_registered_mode_and_back() -> None:
    names = [mode.name for mode in CHART_MODES]
    assert names == ["time", "bandwidth", "roofline", "memory", "timeline"]
    seen, mode = [], names[0]
    for _ in names:
        seen.append(mode)
        mode = next_chart_mode(mode)
    assert seen == names and mode == names[0]
    assert chart_mode("no such mode") is CHART_MODES[0]


def test_each_mode_says_what_it_draws_from_the_data_alone() -> None:
    points: list[SweepPoint] = [message.point for message in POINTS]
    assert points, "the recording has a sweep"
    empty = ChartData((), "s runs the sweep", None, None, (None, None))
    swept = ChartData(points, "", 10.0, None, (None, None))
    time, bandwidth, roofline, memory, timeline = (mode.drawing() for mode in CHART_MODES)
    assert not time.drawn(empty) and time.hint(empty) == "s runs the sweep" and time.drawn(swept)
    assert [label for label, _, _ in time.legend(swept)] == ["eager", "compiled"]
    assert [label for label, _, _ in bandwidth.legend(swept)] == ["eager", "compiled", "ceiling"]
    assert bandwidth.key(swept) != bandwidth.key(replace_ceiling(swept, 20.0)), "the ceiling is drawn"
    assert time.key(swept) == time.key(replace_ceiling(swept, 20.0)), "runtime does not draw the ceiling"
    assert not roofline.drawn(swept) and roofline.hint(swept).startswith("r measures the kernels")
    assert not timeline.drawn(swept) and timeline.hint(swept).startswith("r measures the call")
    assert memory.drawn(swept) and memory.legend(swept) == [], "a recording from before peaks has none to draw"


def replace_ceiling(data: ChartData, ceiling: float) -> ChartData:
    return ChartData(data.points, data.hint, ceiling, data.report, data.highlight)


def test_a_new_mode_is_one_module_and_one_registry_line(monkeypatch: pytest.MonkeyPatch) -> None:
    class Flat:
        def drawn(self, data: ChartData) -> bool:
            return bool(data.points)

        def hint(self, data: ChartData) -> str:
            return "nothing flat yet"

        def legend(self, data: ChartData) -> list[LegendEntry]:
            return [("flat", (1, 2, 3), "━")]

        def subtitle(self, data: ChartData) -> list[str]:
            return ["flat"]

        def key(self, data: ChartData) -> tuple[Any, ...]:
            return ()

        def draw(self, plt: Any, data: ChartData, *, plain: bool, size: tuple[int, int]) -> dict[str, Series]:
            return {}

    module = types.ModuleType("flat_mode")
    module.DRAWING = Flat()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "flat_mode", module)
    modes = (*CHART_MODES, ChartMode("flat", "Flat", "flat", "flat_mode"))
    monkeypatch.setattr(chart_modes, "CHART_MODES", modes)
    monkeypatch.setattr(chart_modes, "BY_NAME", {mode.name: mode for mode in modes})
    assert next_chart_mode(CHART_MODES[-1].name) == "flat" and next_chart_mode("flat") == "time"
    assert chart_mode("flat").drawing().hint(ChartData((), "", None, None, (None, None))) == "nothing flat yet"
