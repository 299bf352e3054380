"""The claims of "Repeated indices" (book/02b_masks_in_practice.ipynb), run on torch and
on autograd_lab: an entry picked twice gets the sum of both seeds (indexing,
index_select, gather, embedding); a plain write with a repeated index keeps the last
value on the CPU yet sends every written value its gradient; accumulate=True,
index_add_ and scatter_add_ add."""
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

LIBS = (al, torch)
PICKS = {
    "x[idx]": lambda lib, x, idx: x[idx],
    "index_select": lambda lib, x, idx: x.index_select(0, idx),
    "gather": lambda lib, x, idx: x.gather(0, idx),
}


@pytest.mark.parametrize("pick", PICKS)
def test_an_entry_picked_twice_gets_the_sum_of_both_seeds(pick):
    grads = []
    for lib in LIBS:
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        PICKS[pick](lib, x, lib.tensor([0, 2, 0])).backward(lib.tensor([10., 20., 30.]))
        grads.append(x.grad.tolist())
    assert grads == [[40., 0., 20.]] * 2


def test_an_embedding_row_looked_up_twice_gets_both_rows_of_the_seed():
    grads = []
    for lib in LIBS:
        W = lib.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)
        rows = lib.nn.functional.embedding(lib.tensor([0, 2, 0]), W)
        rows.backward(lib.tensor([[1., 1.], [2., 2.], [3., 3.]]))
        grads.append((rows.grad_fn.name(), W.grad.tolist()))
    assert grads == [("EmbeddingBackward0", [[4., 4.], [0., 0.], [2., 2.]])] * 2


def _writes(lib):
    at, vals = lib.tensor([0, 0, 2]), lib.tensor([5., 7., 1.])
    out = []
    for how in (lambda y: y.__setitem__(at, vals),
                lambda y: y.index_put_((at,), vals, accumulate=True),
                lambda y: y.index_add_(0, at, vals),
                lambda y: y.scatter_add_(0, at, vals)):
        y = lib.zeros(3)
        how(y)
        out.append(y.tolist())
    return out


def test_a_repeated_write_keeps_the_last_value_on_the_cpu_and_the_adding_writes_add():
    assert _writes(al) == _writes(torch) == [[7., 0., 1.]] + [[12., 0., 1.]] * 3


@pytest.mark.parametrize("accumulate", [False, True])
def test_every_value_written_at_a_repeated_index_gets_the_seed_there(accumulate):
    seen = []
    for lib in LIBS:
        vals = lib.tensor([5., 7., 1.], requires_grad=True)
        base = lib.tensor([1., 2., 3.], requires_grad=True)
        y = base.clone().index_put((lib.tensor([0, 0, 2]),), vals, accumulate=accumulate)
        y.backward(lib.tensor([10., 20., 30.]))
        seen.append((y.tolist(), y.grad_fn.name(), vals.grad.tolist(), base.grad.tolist()))
    base_grad = [10., 20., 30.] if accumulate else [0., 20., 0.]
    value = [13., 2., 4.] if accumulate else [7., 2., 1.]
    assert seen == [(value, "IndexPutBackward0", [10., 10., 30.], base_grad)] * 2


def test_the_exercise_a_word_used_three_times():
    grads = []
    for lib in LIBS:
        x = lib.tensor([1., 2., 3., 4.], requires_grad=True)
        x[lib.tensor([3, 1, 3, 3])].backward(lib.tensor([1., 2., 3., 4.]))
        grads.append(x.grad.tolist())
    assert grads == [[0., 2., 0., 8.]] * 2
