"""A line of parts fitted to its width (``text/fit_parts``): the least important part goes first, a part with a
short form says it before it goes, and what must stay stays, even past the width."""

from __future__ import annotations

from kernel_tui.text.fit_parts import Part, fit_parts

SUBTITLE = [
    Part("5 launches"),
    Part("2.5 MiB (10.0×)", 2),
    Part("221.6 µs/call", 3),
    Part("memory-bound 100% of classified, 3% unclassified", 5, short="memory-bound 100%"),
    Part("you said 5 ✓"),
]
"""Lesson 21's eager subtitle on the CPU, with the learner's answer."""


def test_the_least_important_part_goes_first_and_the_answer_stays() -> None:
    whole = fit_parts(SUBTITLE, 200)
    assert whole.endswith("unclassified · you said 5 ✓") and len(whole) == 110
    assert fit_parts(SUBTITLE, 106) == "5 launches · 2.5 MiB (10.0×) · 221.6 µs/call · memory-bound 100% · you said 5 ✓"
    assert fit_parts(SUBTITLE, 70) == "5 launches · 2.5 MiB (10.0×) · 221.6 µs/call · you said 5 ✓"
    assert fit_parts(SUBTITLE, 50) == "5 launches · 2.5 MiB (10.0×) · you said 5 ✓"
    assert fit_parts(SUBTITLE, 10) == "5 launches · you said 5 ✓", "parts of priority 0 stay past the width"


def test_every_fitted_line_is_within_its_width_and_keeps_its_order() -> None:
    for width in range(25, 120):
        line = fit_parts(SUBTITLE, width)
        assert len(line) <= width, (width, line)
        texts = line.split(" · ")
        assert texts[0] == "5 launches" and texts[-1] == "you said 5 ✓", line


def test_among_equals_the_last_goes_first_and_empty_parts_are_no_parts() -> None:
    parts = [Part("ridge 2.73 FLOP/B", 1), Part("3 not placed: FLOPs unknown or 0", 1), Part(""), Part("b memory")]
    assert fit_parts(parts, 30) == "ridge 2.73 FLOP/B · b memory"


HOTSPOT = [
    Part("aten::mm 83% (model.lm_head)", 0, short="aten::mm 83%"),
    Part("cpp_fused_add_0 6% (model)", 2, short="cpp_fused_add_0 6%"),
    Part("layers: model.lm_head 83%"),
    Part("model.h 5%", 1),
]
"""A hotspot line's parts (``hotspot_parts``): the first kernel and the first module stay; the first kernel says
where it ran only while there is room."""


def test_a_part_that_stays_says_its_short_form_only_as_a_last_resort() -> None:
    whole = "aten::mm 83% (model.lm_head) · cpp_fused_add_0 6% (model) · layers: model.lm_head 83% · model.h 5%"
    assert fit_parts(HOTSPOT, 200) == whole
    assert fit_parts(HOTSPOT, 56) == "aten::mm 83% (model.lm_head) · layers: model.lm_head 83%", "others go first"
    # Too wide with every other part gone: the part that stays says less, and an other part fits beside it again.
    assert fit_parts(HOTSPOT, 55) == "aten::mm 83% · layers: model.lm_head 83% · model.h 5%"
    assert fit_parts(HOTSPOT, 20) == "aten::mm 83% · layers: model.lm_head 83%", "the parts that stay stay"
    for width in range(len("aten::mm 83% · layers: model.lm_head 83%"), 200):
        line = fit_parts(HOTSPOT, width)
        assert len(line) <= width, (width, line)
        assert line.startswith("aten::mm 83%") and "layers: model.lm_head 83%" in line, line
