"""al.einsum beside torch's own einsum (opt_einsum off) on random equations (repeated
letters, ellipses that broadcast, letters of size 1, implicit outputs, one to three
operands): values, grad_fn names, gradients, second derivatives, tangents, a batch of
seeds and vmap; then torch's refusals word for word, the list and sublist forms, and the
neural tangent kernel of PyTorch's "Neural Tangent Kernels" tutorial computed both of
its ways."""
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the comparison with "
                                            "torch.einsum is skipped")

import autograd_lab as al  # noqa: E402
from autograd_lab import func  # noqa: E402

from op_cases import error_of  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def torchs_own_einsum():
    """torch's own einsum, contracting left to right: with the opt_einsum package installed
    (TensorFlow and JAX bring it) torch lets it choose the order, and its checks (ValueErrors
    in other words) run first.  autograd_lab mirrors torch's own."""
    before = torch.backends.opt_einsum.enabled
    torch.backends.opt_einsum.enabled = False
    yield
    torch.backends.opt_einsum.enabled = before


def random_equation(r):
    """An equation and operand shapes that fit it (or, now and then, have a dimension too many)."""
    sizes = {c: r.choice([2, 3, 4]) for c in "ijkl"}
    terms = ["".join(r.choice("ijkl") for _ in range(r.randint(0, 3))) for _ in range(r.choice([1, 2, 2, 3]))]
    dots = r.random() < 0.25
    if dots:
        terms = ["..." + t if r.random() < 0.7 else t for t in terms]
    letters = sorted(set("".join(terms)) - {"."})
    r.shuffle(letters)
    out = "".join(letters[:r.randint(0, len(letters))])
    if dots and r.random() < 0.7:
        out = "..." + out
    equation = ",".join(terms) + ("" if r.random() < 0.25 else "->" + out)
    batch = (r.choice([1, 2]),) * r.randint(1, 2) if dots else ()
    shapes = []
    for t in terms:
        own = t.replace("...", "")
        shape = [sizes[c] if r.random() > 0.12 else 1 for c in own]
        shape = [shape[own.index(c)] for c in own]             # a repeated letter: one size
        shapes.append((batch[r.randint(0, len(batch)):] if "..." in t else ()) + tuple(shape))
    if r.random() < 0.06:                       # one dimension too many: torch refuses
        shapes[-1] = shapes[-1] + (2,)
    return equation, shapes


CASES = [random_equation(random.Random(seed)) for seed in range(160)]


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("equation, shapes", CASES, ids=[f"{e}|{s}" for e, s in CASES])
def test_random_equation_matches_torch(equation, shapes):
    rng = np.random.default_rng(len(equation) + 7 * len(shapes))
    arrays = [rng.normal(size=s) for s in shapes]
    ours = [al.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    refused = error_of(lambda: torch.einsum(equation, *theirs))
    if refused[0]:
        assert error_of(lambda: al.einsum(equation, *ours)) == refused
        return
    y, ty = al.einsum(equation, *ours), torch.einsum(equation, *theirs)
    assert y.shape == tuple(ty.shape) and y.grad_fn.name() == ty.grad_fn.name()
    np.testing.assert_allclose(_np(y), _np(ty), atol=1e-12)
    # gradients, kept recorded, then their own gradients (a weighted sum of them)
    seed = rng.normal(size=tuple(ty.shape))
    gs = al.autograd.grad(y, ours, al.tensor(seed), create_graph=True)
    tgs = torch.autograd.grad(ty, theirs, torch.tensor(seed), create_graph=True)
    for g, tg in zip(gs, tgs):
        np.testing.assert_allclose(_np(g), _np(tg), atol=1e-12)
    weights = [rng.normal(size=s) for s in shapes]
    total = sum(((g * al.tensor(w)).sum() for g, w in zip(gs, weights)), al.tensor(0.0, dtype=al.float64))
    ttotal = sum((g * torch.tensor(w)).sum() for g, w in zip(tgs, weights))
    if ttotal.requires_grad:
        second = al.autograd.grad(total, ours, allow_unused=True, materialize_grads=True)
        tsecond = torch.autograd.grad(ttotal, theirs, allow_unused=True, materialize_grads=True)
        for g, tg in zip(second, tsecond):
            np.testing.assert_allclose(_np(g), _np(tg), atol=1e-12)
    # tangents (forward mode), and a batch of seeds in one backward walk
    tangents = [rng.normal(size=s) for s in shapes]
    _, t = func.jvp(lambda *x: al.einsum(equation, *x), tuple(map(al.tensor, arrays)),
                    tuple(map(al.tensor, tangents)))
    _, tt = torch.func.jvp(lambda *x: torch.einsum(equation, *x), tuple(map(torch.tensor, arrays)),
                           tuple(map(torch.tensor, tangents)))
    np.testing.assert_allclose(_np(t), _np(tt), atol=1e-12)
    seeds = rng.normal(size=(3,) + tuple(ty.shape))
    batched = al.autograd.grad(al.einsum(equation, *ours), ours, al.tensor(seeds), is_grads_batched=True)
    for g, s in zip(batched, range(3)):
        one = al.autograd.grad(al.einsum(equation, *ours), ours, al.tensor(seeds[s]))
        for b, o in zip(batched, one):
            np.testing.assert_allclose(_np(b[s]), _np(o), atol=1e-12)


@pytest.mark.parametrize("equation, shapes", CASES[:60], ids=[f"{e}|{s}" for e, s in CASES[:60]])
def test_vmap_over_the_first_operand_matches_torch(equation, shapes):
    rng = np.random.default_rng(3)
    arrays = [rng.normal(size=(2,) + shapes[0])] + [rng.normal(size=s) for s in shapes[1:]]
    dims = (0,) + (None,) * (len(shapes) - 1)
    refused = error_of(lambda: torch.func.vmap(lambda *x: torch.einsum(equation, *x), dims)(
        *map(torch.tensor, arrays)))
    if refused[0]:
        return                        # (the equation does not fit: the test above checks that)
    y = func.vmap(lambda *x: al.einsum(equation, *x), dims)(*map(al.tensor, arrays))
    ty = torch.func.vmap(lambda *x: torch.einsum(equation, *x), dims)(*map(torch.tensor, arrays))
    np.testing.assert_allclose(_np(y), _np(ty), atol=1e-12)
    g = func.vmap(func.grad(lambda *x: al.einsum(equation, *x).sum(), argnums=tuple(range(len(shapes)))),
                  dims)(*map(al.tensor, arrays))
    tg = torch.func.vmap(torch.func.grad(lambda *x: torch.einsum(equation, *x).sum(),
                                         argnums=tuple(range(len(shapes)))), dims)(*map(torch.tensor, arrays))
    for a, b in zip(g, tg):
        np.testing.assert_allclose(_np(a), _np(b), atol=1e-12)


def test_the_random_equations_cover_what_they_claim():
    fitting = [(e, s) for e, s in CASES
               if not error_of(lambda: torch.einsum(e, *[torch.zeros(x) for x in s]))[0]]
    assert len(fitting) >= 100 and len(CASES) - len(fitting) >= 5
    assert any("..." in e for e, _ in fitting) and any("->" not in e for e, _ in fitting)
    assert any(1 in x for _, s in fitting for x in s)
    assert any(len(set(t)) < len(t) for e, _ in fitting for t in e.split("->")[0].split(",") if "." not in t)
    assert {len(s) for _, s in fitting} == {1, 2, 3}


A, B = np.arange(12.0).reshape(3, 4), np.arange(20.0).reshape(4, 5)
REFUSED = [("ij,jk->ik", [A]), ("ijk,jk->ik", [A, B]), ("ij,jk->ik", [A, A]), ("ij,jk->ikz", [A, B]),
           ("ij->ii", [A]), ("i1,jk->ik", [A, B]), ("ij,jk->ik", [A, B, B]), ("ij,jk->ik->", [A, B]),
           ("ii->i", [A]), ("i...j...->i", [A]), ("ij->i.", [A]), ("ij->i...j...", [A]),
           ("i.j->i", [A]), ("...ijk->ijk", [A]), ("...i,...i->...", [np.ones((2, 3)), np.ones((4, 3))]),
           ("i,i", [np.float64(3), np.ones(2)]), ("ij->i-", [A]),
           ("i,i,i->i", [np.ones(1), np.ones(0), np.ones(2)])]


@pytest.mark.parametrize("equation, arrays", REFUSED, ids=[e for e, _ in REFUSED])
def test_refusals_are_torchs_word_for_word(equation, arrays):
    want = error_of(lambda: torch.einsum(equation, *map(torch.tensor, arrays)))
    assert want[0] and error_of(lambda: al.einsum(equation, *map(al.tensor, arrays))) == want


@pytest.mark.parametrize("call", [
    lambda L: L.einsum("ij,jk->ik", L.tensor(A, dtype=L.float32), L.tensor(B)),
    lambda L: L.einsum("ij,jk->ik", L.tensor(A > 4), L.tensor(B > 4)),
    lambda L: L.einsum("ij,jk->ijk", L.tensor(A > 4), L.tensor(B > 4)),
    lambda L: L.einsum("ij->", L.tensor(A > 4)),
    lambda L: L.einsum("ij,jk->ik", L.tensor(A).int(), L.tensor(B).int()),
    lambda L: L.einsum("i,i", L.tensor(A[0]), 3),
    lambda L: L.einsum("ij, jk -> ik", L.tensor(A), L.tensor(B)),
    lambda L: L.einsum("ij,jk", [L.tensor(A), L.tensor(B)]),
    lambda L: L.einsum(L.tensor(A), [0, 1], L.tensor(B), [1, 2]),
    lambda L: L.einsum(L.tensor(A), [0, Ellipsis], [0]),
    lambda L: L.einsum(L.tensor(A), [0, 60]),
    lambda L: L.einsum("ij,jk->ik", [L.tensor(A)], L.tensor(B)),
    lambda L: L.einsum("ij"),
    lambda L: L.einsum("ab,bc->ac", L.zeros(0, 2), L.zeros(2, 3)),
    lambda L: L.einsum("i->", L.tensor([200, 200], dtype=L.uint8)),
    lambda L: L.einsum("ij->j", L.tensor([[100, 100], [100, 100]], dtype=L.int8)),
    lambda L: L.einsum("ii->i", L.tensor([[1, 2], [3, 4]], dtype=L.int32)),
    lambda L: L.einsum(L.tensor(A)),
    lambda L: L.einsum(L.tensor(A), [0, 1.0]),
], ids=["dtypes differ", "bools multiplied and summed", "bools multiplied", "bools summed", "ints",
        "a number", "spaces", "one list", "sublists", "sublists, ellipsis", "sublist out of range",
        "a list among tensors", "no operand", "empty", "uint8 summed in int64", "int8 summed in int64",
        "a diagonal keeps int32", "only a tensor", "a float in a sublist"])
def test_forms_dtypes_and_odd_operands_are_torchs(call):
    refused = error_of(lambda: call(torch))
    if refused[0]:
        assert error_of(lambda: call(al)) == refused
        return
    y, ty = call(al), call(torch)
    assert y.shape == tuple(ty.shape) and str(y.dtype).split(".")[-1] == str(ty.dtype).split(".")[-1]
    np.testing.assert_array_equal(y.numpy(), ty.numpy())


@pytest.mark.parametrize("equation, shapes", [("i,i->", [(1,), (0,)]), ("ij,jk->ik", [(2, 1), (0, 3)]),
                                              ("ii,i->i", [(1, 1), (0,)]), ("...i,...i->...", [(1, 3), (0, 3)])])
def test_a_size_one_letter_meeting_an_empty_one_has_torchs_gradients(equation, shapes):
    ours = [al.tensor(np.ones(s), requires_grad=True) for s in shapes]
    theirs = [torch.tensor(np.ones(s), requires_grad=True) for s in shapes]
    y, ty = al.einsum(equation, *ours), torch.einsum(equation, *theirs)
    assert y.shape == tuple(ty.shape)
    seed = np.ones(tuple(ty.shape))
    for g, tg in zip(al.autograd.grad(y, ours, al.tensor(seed)), torch.autograd.grad(ty, theirs, torch.tensor(seed))):
        assert g.shape == tuple(tg.shape)
        np.testing.assert_array_equal(_np(g), _np(tg))


# -- the tutorial "Neural Tangent Kernels", shrunk: J(x1) J(x2)^T both of its ways --------------
def _ntk(lib, T, model, x1, x2):
    params = {k: v.detach() for k, v in model.named_parameters()}

    def one(params, x):
        return T.functional_call(model, params, (x.unsqueeze(0),)).squeeze(0)

    def jacobian_contraction():
        j1 = [j.flatten(2) for j in T.vmap(T.jacrev(one), (None, 0))(params, x1).values()]
        j2 = [j.flatten(2) for j in T.vmap(T.jacrev(one), (None, 0))(params, x2).values()]
        return lib.stack([lib.einsum("Naf,Mbf->NMab", a, b) for a, b in zip(j1, j2)]).sum(0)

    def ntk_vector_products():
        def pair(a, b):
            out, pullback = T.vjp(lambda p: one(p, a), params)

            def column(v):
                return T.jvp(lambda p: one(p, b), (params,), pullback(v))[1]
            return T.vmap(column)(lib.eye(out.numel(), dtype=out.dtype).view(out.numel(), -1))
        return T.vmap(T.vmap(pair, (None, 0)), (0, None))(x1, x2)

    full = jacobian_contraction()
    return full, ntk_vector_products(), lib.einsum("NMKK->NM", full), lib.einsum("NMKK->NMK", full)


def test_the_neural_tangent_kernel_tutorial_runs_both_ways_and_agrees_with_torch():
    def cnn(lib):
        nn = lib.nn

        class CNN(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1, self.conv2 = nn.Conv2d(2, 3, (3, 3)), nn.Conv2d(3, 3, (3, 3))
                self.fc = nn.Linear(3 * 4 * 4, 4)

            def forward(self, x):
                return self.fc(self.conv2(self.conv1(x).relu()).flatten(1))
        return CNN()
    al.manual_seed(0)
    ours = cnn(al)
    theirs = cnn(torch)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    rng = np.random.default_rng(4)
    x1, x2 = rng.normal(size=(3, 2, 8, 8)), rng.normal(size=(2, 2, 8, 8))
    got = _ntk(al, al.func, ours, al.tensor(x1, dtype=al.float32), al.tensor(x2, dtype=al.float32))
    want = _ntk(torch, torch.func, theirs, torch.tensor(x1, dtype=torch.float32),
                torch.tensor(x2, dtype=torch.float32))
    assert tuple(got[0].shape) == (3, 2, 4, 4) == tuple(want[0].shape)
    np.testing.assert_allclose(got[0].numpy(), got[1].numpy(), rtol=1e-4, atol=1e-4)   # the two ways
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-4)
