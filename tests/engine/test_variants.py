"""Compile variants beside eager and compiled: ``VARIANTS`` in a file, ``--variant`` on the command line, each
measured as ``compiled`` is and timed in the same rounds; a variant the device cannot honour or torch cannot
compile says so in its own column. A max-autotune variant shows what Inductor tuned; a recompiling scenario's
verdict names the variant that stops its recompiles."""

from __future__ import annotations

import io
import itertools
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import WriteScenario
from rich.console import Console
from support.cli_support import kernel_tui
from support.locations import DATA

from kernel_tui.commands.cli import main
from kernel_tui.model.report.boundary import EXPERIMENTS, experiment_flag
from kernel_tui.model.report.compile_variants import VariantError, parse_variant_flag
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.scenario_file import ScenarioFileError, read_scenario
from kernel_tui.text.markdown_report import scenario_markdown
from kernel_tui.text.parts.variant_text import CPU_AND_GPU, recompile_lines
from kernel_tui.text.render import scenario_view
from kernel_tui.transport import protocol
from kernel_tui.ui.widgets.variants_table import variant_notes

ADD_RELU = DATA / "add_relu.py"
SIZE = "4096"
BROKEN_COMPILER = 'broken=options:{"cpp.cxx": ("no-such-compiler",)}'
"""A variant Inductor accepts and then cannot compile: no C++ compiler by that name exists."""
VARIANT_FLAGS = ("dyn=dynamic:True", "ro=mode:reduce-overhead", "full=fullgraph:True", BROKEN_COMPILER)


def kernel_tui_json(*args: str) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    result = kernel_tui("run", str(ADD_RELU), "--device", "cpu", "--no-sweep", "--json", "--size", SIZE, *args)
    assert result.stdout.strip(), result.stderr[-2000:]
    return json.loads(result.stdout), result


@pytest.fixture(scope="module")
def plain() -> dict[str, Any]:
    data, result = kernel_tui_json()
    assert result.returncode == 0, result.stderr[-2000:]
    return data


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("traces")


@pytest.fixture(scope="module")
def with_variants(traces: Path) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    flags = itertools.chain.from_iterable(("--variant", flag) for flag in VARIANT_FLAGS)
    return kernel_tui_json(*flags, "--trace", str(traces))


def test_each_variant_is_measured_like_compiled_in_its_own_column(
    with_variants: tuple[dict[str, Any], subprocess.CompletedProcess[str]],
) -> None:
    data, _ = with_variants
    assert data["error"] is None
    assert list(data["variants"]) == ["dyn", "ro", "full", "broken"]
    options = {name: variant["options"] for name, variant in data["variants"].items()}
    assert options["dyn"] == {"dynamic": True} and options["ro"] == {"mode": "reduce-overhead"}
    assert options["full"] == {"fullgraph": True}
    for name in ("dyn", "ro", "full"):
        variant = data["variants"][name]
        assert set(data["compiled"]) <= set(variant), name
        assert variant["kernel_count"] == 1 and variant["bytes_total"] == data["compiled"]["bytes_total"]
        assert [kernel["short_name"] for kernel in variant["kernels"]] == ["cpp_fused_add_relu_0"]
        assert variant["kernels"][0]["aten_ops"] == ["aten::add", "aten::relu"]  # attributed like compiled's
        assert variant["time_us"] > 0 and variant["compile_s"] >= 0 and variant["error"] is None
        assert variant["flops"] == 2 * int(SIZE)
        # Each variant compiles a code object of its own: sharing the default's would read as a recompile
        # ("BACKEND_MATCH failure") for dyn, and as no compile at all for full.
        assert variant["graph_breaks"] == 0 and variant["recompiles"] == 0, variant["recompile_reasons"]
        low, high = variant["speedup_range"]
        assert low <= high and variant["speedup"] > 0


def test_each_measured_variant_writes_its_own_trace(
    with_variants: tuple[dict[str, Any], subprocess.CompletedProcess[str]], traces: Path
) -> None:
    # The folder's own note of which scenario owns which trace name (``--trace`` never overwrites) aside.
    names = sorted(path.name for path in traces.iterdir() if path.name != ".kernel-tui-traces.json")
    assert names == [
        f"add_relu.{mode}.json" for mode in ("compiled", "eager", "variant.dyn", "variant.full", "variant.ro")
    ]


def test_reduce_overhead_on_a_cpu_says_its_cuda_graphs_were_skipped(
    with_variants: tuple[dict[str, Any], subprocess.CompletedProcess[str]],
) -> None:
    data, _ = with_variants
    note = data["variants"]["ro"]["note"]
    assert "CUDA graphs need a CUDA device" in note and "on cpu torch.compile skipped them" in note
    assert data["variants"]["dyn"]["note"] is None and data["variants"]["full"]["note"] is None


def test_a_variant_that_fails_to_compile_says_why_and_keeps_every_other_column(
    with_variants: tuple[dict[str, Any], subprocess.CompletedProcess[str]],
) -> None:
    data, result = with_variants
    broken = data["variants"]["broken"]
    assert broken["error"]["stage"] == "compile" and "no-such-compiler" in broken["error"]["message"]
    assert broken["kernel_count"] is None and broken["kernels"] == [] and broken["speedup"] is None
    assert data["compiled"]["kernel_count"] == 1 and data["variants"]["dyn"]["kernel_count"] == 1
    assert all(check["ok"] for check in data["expect"].values())
    assert result.returncode == 1  # it was asked for by name: a script must hear that it has no numbers


def test_compiled_is_the_same_with_variants_beside_it(
    plain: dict[str, Any], with_variants: tuple[dict[str, Any], subprocess.CompletedProcess[str]]
) -> None:
    data, _ = with_variants
    assert plain["variants"] == {}

    def shape(mode: dict[str, Any]) -> tuple[object, ...]:
        kernels = [
            (k["short_name"], k["calls"], k["bytes_read"], k["bytes_written"], k["flops"]) for k in mode["kernels"]
        ]
        return (
            mode["kernel_count"],
            kernels,
            mode["bytes_total"],
            mode["graph_breaks"],
            mode["recompiles"],
            mode["recompile_reasons"],
            mode["flops"],
        )

    assert shape(data["compiled"]) == shape(plain["compiled"])
    assert data["eager"]["kernel_count"] == plain["eager"]["kernel_count"] == 2
    assert data["expect"] == plain["expect"]


def test_the_text_summary_has_a_row_per_variant_within_80_columns(
    with_variants: tuple[dict[str, Any], subprocess.CompletedProcess[str]],
) -> None:
    data, _ = with_variants
    report = ScenarioReport.from_dict(data)
    assert json.loads(json.dumps(report.to_dict()["variants"])) == data["variants"]  # the JSON round-trips
    console = Console(file=io.StringIO(), width=80, record=True)
    console.print(scenario_view(report, 80))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    table = text[text.index("compile variants") :]
    for name in ("eager", "compiled", "dyn", "ro", "full"):
        assert any(line.strip("│ ").startswith(name) for line in table.splitlines()), name
    assert "ro: mode=reduce-overhead" in text and "skipped them" in text
    assert "broken" in text and "InductorError" in text


def test_the_lab_report_has_a_row_per_variant_and_says_what_each_was_asked(
    with_variants: tuple[dict[str, Any], subprocess.CompletedProcess[str]],
) -> None:
    data, _ = with_variants
    markdown = scenario_markdown(ScenarioReport.from_dict(data))
    table = markdown[markdown.index("#### Compile variants") :].split("\n####", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert [row.split("|")[1].strip() for row in rows] == ["eager", "compiled", *data["variants"]]
    assert "`ro`: mode=reduce-overhead" in table and "skipped them" in table


def test_variant_flags_parse_python_literals_and_bare_words() -> None:
    assert parse_variant_flag("dyn=dynamic:True") == ("dyn", {"dynamic": True})
    assert parse_variant_flag("fast=mode:max-autotune-no-cudagraphs") == (
        "fast",
        {"mode": "max-autotune-no-cudagraphs"},
    )
    assert parse_variant_flag('q=mode:"reduce-overhead",fullgraph:True') == (
        "q",
        {"mode": "reduce-overhead", "fullgraph": True},
    )
    assert parse_variant_flag('opt=options:{"max_autotune": True, "epilogue_fusion": False}') == (
        "opt",
        {"options": {"max_autotune": True, "epilogue_fusion": False}},
    )
    assert parse_variant_flag("plain=") == ("plain", {})
    refused = {
        "nameonly": "NAME=KEY:VALUE",
        "x=bogus:1": "unknown torch.compile argument 'bogus'",
        "x=dynamic:maybe": "dynamic must be True, False or None",
        "eager=dynamic:True": "taken by a column of its own",
        "x=mode:a,mode:b": "mode given twice",
        "x=mode:default,options:{'max_autotune': True}": "give mode or options, not both",
        "x=fullgraph": "is not KEY:VALUE",
    }
    for text, message in refused.items():
        with pytest.raises(VariantError, match=message):
            parse_variant_flag(text)


def test_a_malformed_variant_flag_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["run", str(ADD_RELU), "--variant", "x=bogus:1"])
    assert exit_.value.code == 2
    assert "unknown torch.compile argument 'bogus'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["run", str(ADD_RELU), "--device", "cuda-preview", "--variant", "dyn=dynamic:True"])
    assert exit_.value.code == 2
    assert "--variant applies to a measurement" in capsys.readouterr().err


def test_the_run_request_carries_variants_and_refuses_malformed_ones() -> None:
    assert protocol.decode(protocol.encode(protocol.RunRequest(1, "a.py"))) == protocol.RunRequest(1, "a.py")
    request = protocol.decode(protocol.encode(protocol.RunRequest(1, "a.py", variants={"dyn": {"dynamic": True}})))
    assert isinstance(request, protocol.RunRequest) and request.variants == {"dyn": {"dynamic": True}}
    line = protocol.encode(protocol.RunRequest(1, "a.py")).replace('"variants": null', '"variants": {"dyn": true}')
    with pytest.raises(protocol.ProtocolError):
        protocol.decode(line)


def test_variants_in_a_file_are_read_without_running_it(write_scenario: WriteScenario) -> None:
    path = write_scenario(
        'raise SystemExit("never run")\n'
        'VARIANTS = {"default": {"dynamic": False}, "dyn": {"dynamic": True},\n'
        '            "ro": {"mode": "reduce-overhead"}}\n'
    )
    info = read_scenario(path)
    assert info.compile_options == {"dynamic": False}  # the default variant is the compiled column
    assert info.variants == {"dyn": {"dynamic": True}, "ro": {"mode": "reduce-overhead"}}
    assert info.variants_line == 2
    assert read_scenario(write_scenario("x = 1\n", "none.py")).variants == {}


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ('VARIANTS = {"dyn": {"dynamc": True}}\n', "unknown torch.compile argument 'dynamc'"),
        ('VARIANTS = {"dyn": {"fullgraph": "yes"}}\n', "fullgraph must be True or False"),
        ('VARIANTS = {"compiled": {}}\n', "taken by a column of its own"),
        ('VARIANTS = [{"dynamic": True}]\n', "VARIANTS must be a dict"),
        ('COMPILE = {"dynamic": True}\nVARIANTS = {"default": {}}\n', "both set the compiled column"),
    ],
)
def test_a_malformed_variants_literal_names_its_line(write_scenario: WriteScenario, source: str, message: str) -> None:
    path = write_scenario("import torch\n" + source)
    with pytest.raises(ScenarioFileError, match=message) as error:
        read_scenario(path)
    assert error.value.line == source.count("\n") + 1


def test_arguments_this_torch_refuses_are_a_load_error_naming_the_file_and_line(write_scenario: WriteScenario) -> None:
    from kernel_tui.engine.stages.measure import measure_scenario

    source = ADD_RELU.read_text() + '\nVARIANTS = {"dyn": {"dynamic": True}, "x": {"mode": "fastest"}}\n'
    path = write_scenario(source)
    line = source.count("\n")
    error = measure_scenario(path, "cpu").error
    assert error is not None
    assert error.one_line().startswith(f"{path}:{line}: load: VARIANTS: variant 'x': Unrecognized mode=fastest")
    unknown = measure_scenario(path, "cpu", variants_requested={"x": {"options": {"no_such_option": 1}}}).error
    assert unknown is not None and unknown.stage == "load" and unknown.line is None
    assert unknown.message == "--variant x: variant 'x': Unexpected optimization option no_such_option"


def test_interleaved_rounds_take_every_call_in_turn_reversing_each_round(monkeypatch: pytest.MonkeyPatch) -> None:
    from kernel_tui.engine.counting import timing

    monkeypatch.setattr(timing, "ROUND_S", 0.001)
    order: list[str] = []
    calls = [lambda name=name: order.append(name) for name in "abc"]
    result = timing.compare_many_wall(calls, "cpu", budget_s=0.005)
    blocks = "".join(key for key, _ in itertools.groupby(order))
    rounds = [result.timings[side].samples for side in range(3)]
    assert rounds[0] == rounds[1] == rounds[2] >= timing.MIN_ROUNDS
    assert blocks.endswith("cbabc" if rounds[0] % 2 else "abcba")  # forward, then backward, ...
    assert result.ratios[0] and all(ratio == 1 for ratio in result.ratios[0])
    assert result.against(2).second == result.timings[2]


def test_a_variant_flag_adds_to_the_files_variants_and_default_replaces_the_compiled_side(
    write_scenario: WriteScenario,
) -> None:
    from kernel_tui.engine.stages.variants import resolved_info

    info = read_scenario(write_scenario('VARIANTS = {"default": {}, "dyn": {"dynamic": True}}\n'))
    resolved = resolved_info(info, {"default": {"fullgraph": True}, "dyn": {"dynamic": False}, "ro": {}})
    assert resolved.compile_options == {"fullgraph": True}
    assert resolved.variants == {"dyn": {"dynamic": False}, "ro": {}}
    assert resolved_info(info, None) == info


def test_every_experiments_flag_reads_back_as_its_arguments() -> None:
    """The flag a verdict's next step quotes (``--variant NAME=...``) is one ``kernel-tui run`` accepts as it is."""
    for name, arguments in EXPERIMENTS.items():
        assert parse_variant_flag(experiment_flag(name)) == (name, arguments)


# A max-autotune variant shows what Inductor tuned: each operation's candidates with their times as Inductor's own
# benchmark gave them, the winner, "% of best" and what the winner gave up. On this CPU a float32 bmm's candidates
# are ATen's call and Inductor's C++ template; one engine run serves these assertions.

BMM_RELU = DATA / "batched_matmul_relu.py"


@pytest.fixture(scope="module")
def tuned() -> dict[str, Any]:
    result = kernel_tui("run", str(BMM_RELU), "--device", "cpu", "--no-sweep", "--json", "--size", "64")
    assert result.returncode == 0 and result.stdout.strip(), result.stderr[-2000:]
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.mark.engine  # its module fixture runs kernel-tui run
def test_the_json_holds_each_tuned_operation_with_its_candidates_and_winner(tuned: dict[str, Any]) -> None:
    variant = tuned["variants"]["autotune"]
    assert variant["error"] is None
    (operation,) = variant["autotune"]
    assert operation["operation"] == "bmm" and operation["shapes"] == [[4, 64, 64], [4, 64, 64]]
    kinds = {choice["kind"] for choice in operation["choices"]}
    assert kinds == {"library", "template"}  # ATen's bmm against the C++ template
    assert "bmm" in [choice["name"] for choice in operation["choices"] if choice["kind"] == "library"]
    times = [choice["time_ms"] for choice in operation["choices"]]
    assert all(time > 0 for time in times) and times == sorted(times)  # fastest first
    first = operation["choices"][0]
    assert operation["winner"] == first["name"] and first["percent_of_best"] == pytest.approx(100.0)
    for choice in operation["choices"][1:]:
        assert choice["percent_of_best"] == pytest.approx(100.0 * first["time_ms"] / choice["time_ms"])
    if first["kind"] == "library":
        assert "no epilogue fuses into it" in operation["gave_up"]
    else:
        assert operation["gave_up"].startswith("nothing: a template can take the epilogue")
    # The default column tunes nothing and says nothing of it: only a variant that asks for tuning is watched.
    assert "autotune" not in tuned["compiled"]
    # With ATen's backend alone the bmm has one candidate: nothing is timed, and the note says why.
    aten_only = tuned["variants"]["aten_only"]
    assert aten_only["autotune"] == [] and aten_only["error"] is None
    assert aten_only["note"].startswith("max-autotune tuned nothing here: no operation had two candidates")


@pytest.mark.engine  # its module fixture runs kernel-tui run
def test_the_text_and_the_explorer_say_the_candidates_and_the_winner(tuned: dict[str, Any]) -> None:
    report = ScenarioReport.from_dict(tuned)
    operation = report.variants["autotune"].autotune[0]
    assert operation.winner is not None
    console = Console(file=io.StringIO(), width=400, color_system=None)
    console.print(scenario_view(report, 400))
    printed = console.file.getvalue()  # type: ignore[attr-defined]
    assert f"autotune: autotuned bmm(4×64×64, 4×64×64): 2 candidates, chose {operation.winner.name}" in printed
    assert "100.0% of best" in printed and "gave up:" in printed and CPU_AND_GPU in printed
    notes = "\n".join(line.plain for line in variant_notes(report, ["autotune"]))
    assert f"chose {operation.winner.name}" in notes and "% of best" in notes and CPU_AND_GPU in notes


# A scenario that recompiles shows the guard that failed and the change that stops it, runnable as a variant: the
# verdict's next step quotes the --variant flag of the dynamic experiment, and the column that flag adds compiles
# once where the default recompiled; the two columns' kernels side by side. One engine run serves these assertions.

CHANGING_SLICE = DATA / "changing_slice.py"


@pytest.fixture(scope="module")
def fixed() -> dict[str, Any]:
    flag = experiment_flag("dynamic")
    result = kernel_tui(
        "run", str(CHANGING_SLICE), "--device", "cpu", "--no-sweep", "--json", "--size", "4096", "--variant", flag
    )
    assert result.returncode == 0 and result.stdout.strip(), result.stderr[-2000:]
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.mark.engine  # its module fixture runs kernel-tui run
def test_the_verdict_names_the_guard_and_the_variant_that_stops_the_recompiles(fixed: dict[str, Any]) -> None:
    compiled = fixed["compiled"]
    assert compiled["recompiles"] >= 1
    assert "size mismatch" in compiled["recompile_reasons"][0]  # the guard that failed: KEPT[0]'s length
    verdict = fixed["verdict"]
    assert verdict["cause"] == "recompiles" and verdict["variant"] == "dynamic"
    assert f"--variant {experiment_flag('dynamic')}" in verdict["next_step"]
    assert "torch._dynamo.mark_dynamic(x, 0)" in verdict["next_step"]


@pytest.mark.engine  # its module fixture runs kernel-tui run
def test_the_suggested_variant_compiles_once(fixed: dict[str, Any]) -> None:
    variant = fixed["variants"]["dynamic"]
    assert variant["options"] == EXPERIMENTS["dynamic"] and variant["error"] is None
    assert variant["recompiles"] == 0 and variant["recompile_reasons"] == []
    assert variant["kernel_count"] == fixed["compiled"]["kernel_count"]


@pytest.mark.engine  # its module fixture runs kernel-tui run
def test_the_compiled_and_dynamic_kernels_are_shown_side_by_side(fixed: dict[str, Any]) -> None:
    report = ScenarioReport.from_dict(fixed)
    lines = recompile_lines(report)
    assert lines[0].startswith(f"recompiles {fixed['compiled']['recompiles']}: the guard that failed: ")
    assert "size mismatch" in lines[0]
    assert lines[1] == "  the change that stops it: the dynamic variant, 0 recompiles"
    compiled_line = next(line for line in lines if line.startswith("  compiled "))
    dynamic_line = next(line for line in lines if line.startswith("  dynamic "))
    # The dynamic kernel takes x's length as an argument too, where the compiled one has it as a constant (its
    # second graph, recompiled with Dynamo's automatic dynamic, takes only the slice's start).
    assert "ks1" not in compiled_line and "per call" in compiled_line
    assert "sizes as symbols: ks0, ks1" in dynamic_line and "per call" in dynamic_line
    console = Console(file=io.StringIO(), width=400, color_system=None)
    console.print(scenario_view(report, 400))
    printed = console.file.getvalue()  # type: ignore[attr-defined]
    assert all(line.rstrip() in printed for line in lines)
    notes = [line.plain for line in variant_notes(report, ["dynamic"])]
    assert lines[1] in notes and dynamic_line in notes
