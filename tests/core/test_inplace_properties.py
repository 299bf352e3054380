"""Property-based: any sequence of in-place writes through views of a tensor in a graph
gives the numbers the same writes give outside any graph, counts one version per write,
and has the gradients finite differences find -- and, with torch installed, torch's
numbers, nodes, versions and refusals."""
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograd_lab as al
from autograd_lab import saved

from op_cases import setitem


VIEWS = {       # views of a (3, 4) tensor, written the same way for either library
    "the tensor": lambda t: t,
    "a row": lambda t: t[1],
    "a block of columns": lambda t: t[:, 1:3],
    "the transpose": lambda t: t.t(),
    "a row of a transposed slice": lambda t: t[0:2].t()[1],
    "every other number of a flat view": lambda t: t.view(12)[::2],
    "one number": lambda t: t[2, 3],
    "a number of an unsqueezed view": lambda t: t.unsqueeze(0)[0, 2, 1],
}

WRITES = {      # writes whose rules keep no output: any later write is allowed
    "add_(w)": lambda v, w: v.add_(w),
    "mul_(w)": lambda v, w: v.mul_(w),
    "sin_()": lambda v, w: v.sin_(),
    "neg_()": lambda v, w: v.neg_(),
    "div_(1 + w * w)": lambda v, w: v.div_(1 + w * w),
    "v[v > 0] = w": lambda v, w: setitem(v, v > 0, w),
    "fill_(w)": lambda v, w: v.fill_(w),
    "zero_()": lambda v, w: v.zero_(),
    "masked_fill_(v < 0, 2 * w)": lambda v, w: v.masked_fill_(v < 0, w * 2),
    "copy_(3 * w)": lambda v, w: v.copy_(w * 3),
}

KEEP_THEIR_OUTPUT = {   # a later write to any part of the tensor spoils what these saved
    "exp_()": lambda v, w: v.exp_(),
    "sigmoid_()": lambda v, w: v.sigmoid_(),
    "relu_()": lambda v, w: v.relu_(),
}

steps = st.lists(st.tuples(st.sampled_from(sorted(VIEWS)), st.sampled_from(sorted(WRITES))),
                 min_size=1, max_size=5)


def written(steps, x, w, writes=WRITES):
    y = x * 1
    for view, write in steps:
        writes[write](VIEWS[view](y), w)
    return y


def inputs(seed, lib=al):
    rng = np.random.default_rng(seed)
    x = lib.tensor(rng.normal(size=(3, 4)), dtype=lib.float64, requires_grad=True)
    w = lib.tensor(0.5 + 0.25 * rng.random(), dtype=lib.float64, requires_grad=True)
    return x, w


# Twice: as they are, and with every array counted big (saved.KEEP_BELOW = 0), where a
# write on the whole tensor computes straight into its memory (Op.writes_into)
BIG = pytest.mark.parametrize("keep_below", [saved.KEEP_BELOW, 0], ids=["small arrays", "big arrays"])


@BIG
@settings(max_examples=60, deadline=None)
@given(steps=steps, seed=st.integers(0, 2 ** 16))
def test_writes_through_views_have_the_numbers_versions_and_gradients_of_their_math(keep_below, steps, seed):
    with mock.patch.object(saved, "KEEP_BELOW", keep_below):
        check_the_math(steps, seed)


def check_the_math(steps, seed):
    x, w = inputs(seed)
    y = written(steps, x, w)
    plain = written(steps, x.detach().clone(), w.detach().clone())    # nothing recorded
    assert np.array_equal(y.detach().numpy(), plain.numpy())
    assert y._version == len(steps) and y.requires_grad
    assert al.autograd.gradcheck(lambda x, w: written(steps, x, w), (x, w), atol=1e-6, rtol=1e-4)


def outcome(lib, steps, seed):
    x, w = inputs(seed, lib)
    try:
        y = written(steps, x, w, {**WRITES, **KEEP_THEIR_OUTPUT})
        seen = (y.tolist(), y.grad_fn.name().split("::")[-1], y._version)
        (y * y).sum().backward()
        return seen + (x.grad.numpy().tolist(), 0.0 if w.grad is None else w.grad.item())
    except RuntimeError as e:
        return str(e).replace("torch.", "al.")


all_steps = st.lists(st.tuples(st.sampled_from(sorted(VIEWS)),
                               st.sampled_from(sorted(WRITES) + sorted(KEEP_THEIR_OUTPUT))),
                     min_size=1, max_size=5)


@BIG
@settings(max_examples=80, deadline=None)
@given(steps=all_steps, seed=st.integers(0, 2 ** 16))
def test_writes_through_views_as_in_torch(keep_below, steps, seed):
    torch = pytest.importorskip("torch")
    with mock.patch.object(saved, "KEEP_BELOW", keep_below):
        ours = outcome(al, steps, seed)
    theirs = outcome(torch, steps, seed)
    if isinstance(theirs, str):
        assert ours == theirs
    else:
        assert ours[1:3] == theirs[1:3]
        for a, b in zip(ours[:1] + ours[3:], theirs[:1] + theirs[3:]):
            assert np.allclose(a, b, rtol=1e-6, atol=1e-8)
