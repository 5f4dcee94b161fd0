"""The byte-counting rules, checked on real tensors through the dispatcher (no compile, fast)."""

from __future__ import annotations

import torch

from kernel_tui.engine.counting.traffic import array_bytes, eager_traffic, ideal_bytes, tensor_bytes

N = 1024
F32 = 4


def test_add_relu_moves_five_arrays_eager() -> None:
    a, b = torch.randn(N), torch.randn(N)
    ops = eager_traffic(lambda a, b: (a + b).relu(), (a, b))
    assert [(op.name, op.bytes_read, op.bytes_written) for op in ops] == [
        ("aten::add", 2 * N * F32, N * F32),
        ("aten::relu", N * F32, N * F32),
    ]


def test_views_move_nothing() -> None:
    x = torch.randn(32, 32)
    assert eager_traffic(lambda x: x.view(-1)[::2].view(16, 32).t(), (x,)) == []


def test_contiguous_of_a_transpose_is_a_copy() -> None:
    x = torch.randn(32, 32)
    ops = eager_traffic(lambda x: x.t().contiguous(), (x,))
    assert [(op.name, op.bytes_read, op.bytes_written) for op in ops] == [("aten::clone", 32 * 32 * F32, 32 * 32 * F32)]


def test_broadcast_operand_is_read_once() -> None:
    x, bias = torch.randn(64, 128), torch.randn(128)
    (op,) = eager_traffic(lambda x, bias: x + bias, (x, bias))
    assert op.bytes_read == (64 * 128 + 128) * F32
    assert op.bytes_written == 64 * 128 * F32


def test_expanded_input_counts_its_real_elements() -> None:
    row = torch.randn(1, 128).expand(64, 128)
    assert tensor_bytes(row) == 128 * F32


def test_in_place_reads_and_writes_its_target() -> None:
    a, b = torch.randn(N), torch.randn(N)
    (op,) = eager_traffic(lambda a, b: a.add_(b), (a, b))
    assert op.name == "aten::add_"
    assert (op.bytes_read, op.bytes_written) == (2 * N * F32, N * F32)


def test_out_argument_is_written_not_read() -> None:
    a, b, out = torch.randn(N), torch.randn(N), torch.empty(N)
    (op,) = eager_traffic(lambda a, b, out: torch.add(a, b, out=out), (a, b, out))
    assert (op.bytes_read, op.bytes_written) == (2 * N * F32, N * F32)


def test_same_tensor_twice_is_read_once() -> None:
    a = torch.randn(N)
    (op,) = eager_traffic(lambda a: a * a, (a,))
    assert op.bytes_read == N * F32


def test_dtype_cast_reads_one_width_and_writes_another() -> None:
    a = torch.randn(N)
    ops = eager_traffic(lambda a: a.half(), (a,))
    assert [(op.name, op.bytes_read, op.bytes_written) for op in ops] == [("aten::_to_copy", N * 4, N * 2)]


def test_ideal_is_inputs_once_and_outputs_once() -> None:
    a, b = torch.randn(N), torch.randn(N)
    assert ideal_bytes((a, b), (a + b).relu()) == 3 * N * F32
    assert array_bytes((a, torch.randn(N // 4))) == N * F32


def test_an_operators_record_carries_what_the_profile_is_joined_by() -> None:
    """The engine's one byte record: the operator's own name as its work, the scenario line that called it."""
    a = torch.randn(N)

    def double(a: torch.Tensor) -> torch.Tensor:
        return a * 2

    (op,) = eager_traffic(double, (a,), __file__)
    called_from = double.__code__.co_firstlineno + 1
    assert (op.name, op.aten_ops, op.lines) == ("aten::mul", ("aten::mul",), (called_from,))
    assert op.bytes_total == 2 * N * F32 and op.call is None
