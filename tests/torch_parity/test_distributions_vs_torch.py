"""al.distributions against torch.distributions: log_prob, entropy, kl_divergence and the
moments -- values, gradients with respect to the parameters, grad_fn names --; the shapes
and dtypes of draws and what their statistics come to (the numbers are autograd_lab's
generator's, not torch's); the reparameterized draw's gradient; printed forms; and the
argument checks, word for word."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

from op_cases import error_of  # noqa: E402

LOC, SCALE = np.array([[0.5, -1.0, 2.0], [0.0, 0.3, -0.7]]), np.array([[1.0, 2.0, 0.5], [0.8, 1.5, 3.0]])
LOGITS = np.array([[0.5, -1.0, 2.0, 0.1], [0.0, 1.0, 3.0, -2.0]])
VALUE = np.array([[0.3, 0.4, -1.0], [2.0, 0.0, 0.1]])
COVARIANCE = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 1.5]])


def _lib(D):
    return al if D is al.distributions else torch

# (make the distribution from the library and the parameters, parameter values, what to evaluate)
CASES = {
    "Normal": (lambda D, p: D.Normal(p[0], p[1]), [LOC, SCALE], VALUE),
    "Normal, a number for scale": (lambda D, p: D.Normal(p[0], 2.0), [LOC], VALUE),
    "Uniform": (lambda D, p: D.Uniform(p[0], p[0] + p[1]), [LOC, SCALE], LOC + SCALE / 3),
    "Bernoulli, probs": (lambda D, p: D.Bernoulli(probs=p[0].sigmoid()), [LOC], (LOC > 0).astype(float)),
    "Bernoulli, logits": (lambda D, p: D.Bernoulli(logits=p[0]), [LOC], (LOC < 0.4).astype(float)),
    "Categorical, logits": (lambda D, p: D.Categorical(logits=p[0]), [LOGITS], np.array([2, 0])),
    "Categorical, probs": (lambda D, p: D.Categorical(probs=p[0].exp()), [LOGITS], np.array([[3, 1], [0, 2]])),
    "Independent Normal": (lambda D, p: D.Independent(D.Normal(p[0], p[1]), 1), [LOC, SCALE], VALUE),
    "MultivariateNormal, covariance": (lambda D, p: D.MultivariateNormal(p[0], _lib(D).tensor(COVARIANCE)), [LOC],
                                       VALUE),
    "MultivariateNormal, scale_tril": (lambda D, p: D.MultivariateNormal(
        p[0], scale_tril=_lib(D).tensor(np.linalg.cholesky(COVARIANCE))), [LOC[0]], VALUE),
    "MultivariateNormal, precision": (lambda D, p: D.MultivariateNormal(
        p[0], precision_matrix=_lib(D).tensor(COVARIANCE)), [LOC], VALUE[0]),
}


def _evaluate(lib, case):
    make, params, value = CASES[case]
    D = lib.distributions
    tensors = [lib.tensor(p, requires_grad=True) for p in params]
    dist = make(D, tensors)
    v = lib.tensor(value) if value.dtype.kind == "f" else lib.tensor(value)
    log_prob, entropy = dist.log_prob(v), dist.entropy()
    grads = lib.autograd.grad((log_prob * 1.3).sum() + entropy.sum(), tensors)
    moments = []
    for name in ("mean", "variance", "stddev", "mode"):
        try:
            moments.append(getattr(dist, name).detach().numpy())
        except NotImplementedError:
            moments.append(None)
    name = lambda t: t.grad_fn.name() if t.grad_fn is not None else None          # noqa: E731
    return (log_prob.detach().numpy(), entropy.detach().numpy(), [g.numpy() for g in grads], name(log_prob),
            name(entropy), tuple(dist.batch_shape), tuple(dist.event_shape), moments,
            tuple(dist.sample((5,)).shape), str(dist.sample().dtype).split(".")[-1], repr(dist))


@pytest.mark.parametrize("case", list(CASES))
def test_log_prob_entropy_and_moments_match_torch_with_their_gradients(case):
    ours, theirs = _evaluate(al, case), _evaluate(torch, case)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    for a, b in zip(ours[2], theirs[2], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    for a, b in zip(ours[7], theirs[7], strict=True):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, equal_nan=True)
    assert ours[3:7] == theirs[3:7] and ours[8:] == theirs[8:]


def test_rsample_is_differentiable_and_sample_is_not():
    loc = al.tensor([0.5, -1.0], requires_grad=True)
    scale = al.tensor([2.0, 0.5], requires_grad=True)
    al.manual_seed(0)
    dist = al.distributions.Normal(loc, scale)
    x = dist.rsample((1000,))
    assert x.shape == (1000, 2) and x.grad_fn is not None and dist.sample().grad_fn is None
    g_loc, g_scale = al.autograd.grad(x.sum(), (loc, scale))
    noise = (x.detach() - loc.detach()) / scale.detach()
    assert g_loc.tolist() == [1000.0, 1000.0]
    assert np.allclose(g_scale.numpy(), noise.sum(0).numpy())          # d(loc + eps scale)/d scale = eps
    assert np.allclose(noise.numpy().mean(0), 0, atol=0.1) and np.allclose(noise.numpy().std(0), 1, atol=0.1)
    assert torch.distributions.Normal(0.0, 1.0).has_rsample and al.distributions.Normal(0.0, 1.0).has_rsample
    assert not al.distributions.Categorical(logits=al.zeros(2)).has_rsample


def test_draws_follow_their_distributions_and_the_seed():
    D = al.distributions
    al.manual_seed(3)
    cat = D.Categorical(probs=al.tensor([0.1, 0.2, 0.7]))
    counts = np.bincount(cat.sample((20000,)).numpy(), minlength=3) / 20000
    assert np.allclose(counts, [0.1, 0.2, 0.7], atol=0.015)
    bern = D.Bernoulli(probs=al.tensor([0.25, 0.9]))
    assert np.allclose(bern.sample((20000,)).numpy().mean(0), [0.25, 0.9], atol=0.015)
    uni = D.Uniform(al.tensor([-1.0]), al.tensor([3.0])).sample((20000,)).numpy()
    assert uni.min() >= -1 and uni.max() < 3 and abs(uni.mean() - 1) < 0.05
    al.manual_seed(7)
    first = cat.sample((4,)).tolist()
    al.manual_seed(7)
    assert cat.sample((4,)).tolist() == first


def test_a_policy_gradient_step_matches_torchs_for_the_same_actions():
    """REINFORCE, as learners write it: -(log_prob(actions) * returns).mean()."""
    logits = np.array([[0.2, -0.4, 1.0], [1.5, 0.0, -1.0], [0.0, 0.0, 0.0]])
    actions, returns = np.array([2, 0, 1]), np.array([1.0, -0.5, 2.0])
    got = []
    for lib in (al, torch):
        W = lib.tensor(logits, requires_grad=True)
        dist = lib.distributions.Categorical(logits=W * 2)
        loss = -(dist.log_prob(lib.tensor(actions)) * lib.tensor(returns)).mean() - 0.01 * dist.entropy().mean()
        loss.backward()
        got.append((loss.item(), W.grad.numpy()))
    assert got[0][0] == pytest.approx(got[1][0], rel=1e-12)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-10)


KL = {
    "Normal": lambda D, p: (D.Normal(p[0], p[1]), D.Normal(p[0] * 0.5, p[1] + 1)),
    "Categorical": lambda D, p: (D.Categorical(logits=p[0]), D.Categorical(logits=p[0][:, [3, 2, 1, 0]])),
    "Bernoulli": lambda D, p: (D.Bernoulli(logits=p[0]), D.Bernoulli(probs=p[0].sigmoid() * 0.5)),
    "Independent": lambda D, p: (D.Independent(D.Normal(p[0], p[1]), 1), D.Independent(D.Normal(p[1], p[1]), 1)),
}


@pytest.mark.parametrize("case", list(KL))
def test_kl_divergence_matches_torchs_with_its_gradient(case):
    got = []
    for lib in (al, torch):
        params = [lib.tensor(LOGITS if case == "Categorical" else LOC, requires_grad=True), lib.tensor(SCALE)]
        p, q = KL[case](lib.distributions, params)
        kl = lib.distributions.kl_divergence(p, q)
        g, = lib.autograd.grad(kl.sum(), params[0])
        got.append((kl.detach().numpy(), g.numpy(), kl.grad_fn.name()))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-12)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-10)
    assert got[0][2] == got[1][2]


REFUSED = {
    "a negative scale": lambda D, L: D.Normal(L.zeros(2), L.tensor([1.0, -1.0])),
    "shapes that do not broadcast": lambda D, L: D.Normal(L.zeros(2), L.ones(3)),
    "both probs and logits": lambda D, L: D.Categorical(probs=L.tensor([0.2, 0.8]), logits=L.tensor([0.2, 0.8])),
    "neither probs nor logits": lambda D, L: D.Bernoulli(),
    "negative probabilities": lambda D, L: D.Categorical(L.tensor([-0.2, 0.8])),
    "0-d probs": lambda D, L: D.Categorical(L.tensor(0.5)),
    "0-d logits": lambda D, L: D.Categorical(logits=L.tensor(0.5)),
    "a class past the last": lambda D, L: D.Categorical(logits=L.zeros(3)).log_prob(L.tensor(3)),
    "a class that is not whole": lambda D, L: D.Categorical(logits=L.zeros(3)).log_prob(L.tensor(1.5)),
    "a probability above 1": lambda D, L: D.Bernoulli(L.tensor([0.2, 1.5])),
    "a Bernoulli value of 2": lambda D, L: D.Bernoulli(probs=L.tensor([0.2])).log_prob(L.tensor([2.0])),
    "a NaN value": lambda D, L: D.Normal(0.0, 1.0).log_prob(L.tensor([float("nan")])),
    "low above high": lambda D, L: D.Uniform(1.0, 0.0),
    "a value outside [low, high)": lambda D, L: D.Uniform(0.0, 1.0).log_prob(L.tensor(2.0)),
    "a value of another shape": lambda D, L: D.Normal(L.zeros(2), 1.0).log_prob(L.zeros(3)),
    "a value that is not a tensor": lambda D, L: D.Normal(L.zeros(2), 1.0).log_prob([0.0]),
    "an event of another shape": lambda D, L: D.Independent(D.Normal(L.zeros(2), 1.0), 1).log_prob(L.zeros(3)),
    "more event dims than batch dims": lambda D, L: D.Independent(D.Normal(L.zeros(2), 1.0), 2),
    "a KL of two kinds": lambda D, L: D.kl_divergence(D.Normal(0.0, 1.0), D.Categorical(logits=L.zeros(2))),
    "an int sample shape": lambda D, L: D.Categorical(logits=L.zeros(3)).sample(5),
    "rsample of a Categorical": lambda D, L: D.Categorical(logits=L.zeros(3)).rsample(),
    "a covariance that is not positive definite": lambda D, L: D.MultivariateNormal(
        L.zeros(2), L.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "a scale_tril that is not lower triangular": lambda D, L: D.MultivariateNormal(
        L.zeros(2), scale_tril=L.tensor([[1.0, 1.0], [0.0, 1.0]])),
    "no covariance": lambda D, L: D.MultivariateNormal(L.zeros(2)),
    "a covariance and a scale_tril": lambda D, L: D.MultivariateNormal(L.zeros(2), L.eye(2), scale_tril=L.eye(2)),
    "a 0-d loc": lambda D, L: D.MultivariateNormal(L.tensor(0.0), L.eye(2)),
    "a 1-d covariance": lambda D, L: D.MultivariateNormal(L.zeros(2), L.ones(2)),
    "a value of another event shape": lambda D, L: D.MultivariateNormal(L.zeros(2), L.eye(2)).log_prob(L.zeros(3)),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_distributions_refuse_what_torch_refuses_in_its_words(case):
    ours = error_of(lambda: REFUSED[case](al.distributions, al))
    theirs = error_of(lambda: REFUSED[case](torch.distributions, torch))
    assert theirs[0] is not None and ours == theirs


def test_a_multivariate_normal_refuses_a_covariance_that_requires_grad_in_words():
    kind, message = error_of(lambda: al.distributions.MultivariateNormal(
        al.zeros(2), al.eye(2, requires_grad=True)))
    assert kind == "NotImplementedError" and "no differentiable Cholesky" in message


def test_without_validation_a_value_outside_the_support_gets_torchs_log_prob():
    ours = al.distributions.Uniform(0.0, 1.0, validate_args=False).log_prob(al.tensor([2.0, 0.5]))
    theirs = torch.distributions.Uniform(0.0, 1.0, validate_args=False).log_prob(torch.tensor([2.0, 0.5]))
    assert ours.tolist() == theirs.tolist() == [float("-inf"), 0.0]


def test_printed_forms_and_supports_are_torchs():
    def shown(L):
        D = L.distributions
        return [repr(d) for d in (D.Normal(0.0, 1.0), D.Normal(L.zeros(2), 1.0), D.Bernoulli(0.3),
                                  D.Bernoulli(L.tensor([0.3])), D.Categorical(probs=L.tensor([[0.5, 0.5]])),
                                  D.Uniform(0.0, 2.0), D.Independent(D.Normal(L.zeros(3, 2), 1.0), 1))] + \
            [repr(D.Categorical(logits=L.zeros(4, 3)).support), repr(D.Normal(0.0, 1.0).support),
             repr(D.Bernoulli(0.3).support), repr(D.Uniform(0.0, 1.0).support),
             repr(D.Normal(0.0, 1.0).arg_constraints), D.Categorical(logits=L.zeros(3)).enumerate_support().tolist()]
    assert shown(al) == shown(torch)
