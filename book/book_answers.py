"""The answer boxes of the book's exercises: for each exercise, its questions, the answer
its own solution computed (read from the notebook's names), and the wrong answers a
learner is likely to give, each computed here by autograd_lab from the mistaken
reasoning, with a hint naming the mistake and the section that teaches it.

A chapter shows the box of an exercise below the exercise's check, with
``al.widgets.answer_box("03.1", globals())``: the solution and the check have run, so the
answer and the exercise's inputs are the notebook's own (no number is typed twice).

This is book content and lives beside the chapters: the kernel of a chapter runs in
book/ (JupyterLab opened on book/, nbval, the book's build), where ``answer_box`` finds
this module.  The widget and the judge are the library's (``exercise.py``).
"""
import numpy as np

import autograd_lab as al

from autograd_lab.teaching.widgets.exercise import AnswerBox, Ask, Mistake

CH = {"00": "00_first_gradient", "01": "01_autograd_in_one_sitting",
      "01b": "01b_the_chain_rule_in_numbers", "02": "02_masks_where_select_cond", "02b": "02b_masks_in_practice",
      "03": "03_backward_gradient_seed", "04": "04_grad_outputs",
      "05": "05_reconstructing_the_jacobian", "05b": "05b_what_backward_keeps",
      "05c": "05c_what_the_graph_keeps_alive", "05d": "05d_your_own_backward",
      "06": "06_inside_autograd_lab"}
EXERCISES = {}


def exercise(key):
    def register(fn):
        EXERCISES[key] = fn
        return fn
    return register


def see(chapter, heading, title=None):
    """A section of the book: its heading as the notebook writes it (and the title to show
    where that has TeX)."""
    return (CH[chapter], heading) + ((title,) if title else ())


def leaf(t):
    """A fresh leaf with t's numbers."""
    return al.tensor(np.array(t.detach()._data, copy=True), requires_grad=True)


def grad_of(fn, *inputs):
    """The gradients of fn(*leaves).sum() with respect to fresh leaves holding ``inputs``."""
    leaves = [leaf(t) for t in inputs]
    fn(*leaves).sum().backward()
    return [t.grad for t in leaves] if len(leaves) > 1 else leaves[0].grad


def answer_box(key, ns):
    """The answer box of exercise ``key`` ("03.1": chapter 03, exercise 1), made from the
    notebook's names ``ns`` (pass ``globals()``) once its solution and check have run."""
    if key not in EXERCISES:
        raise KeyError(f"no answer box for exercise {key!r}; known: {', '.join(EXERCISES)}")
    title, asks = EXERCISES[key](ns)
    return AnswerBox(f"Exercise {key.split('.')[1]}: {title}", asks)


# -- 00: a first gradient --------------------------------------------------------------------
@exercise("00.1")
def _(ns):
    x, M, seed = ns["x"], ns["M"], ns["seed"]
    swapped = seed.clone()
    swapped._data = np.abs(swapped._data)
    return "another seed", [Ask("x.grad", ns["predicted"], mistakes=[
        Mistake(seed @ M, "That is Jv: the seed weighted the columns of J. Backward "
                "weights its rows (vᵀJ).", see("00", "Rows are outputs, columns are inputs")),
        Mistake(grad_of(lambda t: t @ M, x), "That is the gradient for a seed of ones "
                "(y.sum()): the seed [[2, -1]] weights the two rows by 2 and -1.",
                see("00", "The seed is not optional")),
        Mistake(swapped @ M.t(), "Keep the seed's sign: -1 subtracts the second row of J.",
                see("00", "Rows are outputs, columns are inputs")),
    ])]


@exercise("00.2")
def _(ns):
    A, x = ns["A"], ns["x"]
    J = ns["J"]
    full = al.autograd.functional.jacobian(lambda t: t @ A, x.detach())
    return "more outputs than inputs", [
        Ask("Shape of the Jacobian (x flat)", ns["predicted_J_shape"], kind="shape", mistakes=[
            Mistake(tuple(J.t().shape), "That is the transposed Jacobian: one row per output "
                    "(three), one column per input (two).",
                    see("00", "Rows are outputs, columns are inputs")),
            Mistake(tuple(full.shape), "That is the shape for x of shape (1, 2); the question "
                    "takes x flat, shape (2,).", see("00", "Rows are outputs, columns are inputs")),
        ]),
        Ask("Shape of the seed", ns["predicted_seed_shape"], kind="shape", mistakes=[
            Mistake(tuple(x.shape), "The seed has the output's shape, not the input's: one "
                    "weight per entry of y.", see("00", "The seed is not optional")),
        ]),
        Ask("x.grad for the seed [0, 0, 1]", ns["predicted"], mistakes=[
            Mistake(grad_of(lambda t: t @ A, x), "That is the sum of all three rows (a seed "
                    "of ones); [0, 0, 1] picks the last row only.",
                    see("00", "Rows are outputs, columns are inputs")),
            Mistake(J[0], "That is the first row of J; the 1 of [0, 0, 1] is the last entry.",
                    see("00", "Rows are outputs, columns are inputs")),
        ]),
    ]


# -- 01: autograd in one sitting -----------------------------------------------------------
@exercise("01.1")
def _(ns):
    layer, W, b, base = ns["layer"], ns["W"], ns["b"], ns["W_grad_implicit"]

    def multiple(calls, zero_after=None):
        Wc, bc = leaf(W), leaf(b)
        avg = layer(Wc, bc)[2]
        for k in range(calls):
            if k == zero_after:
                Wc.grad.zero_()
            avg.backward(retain_graph=True)
        return float((Wc.grad / base).mean().item())

    last_only = leaf(W)
    layer(last_only, leaf(b))[2].backward()
    replaced = float((last_only.grad / base).mean().item())
    return "count the walks", [
        Ask("W.grad as a multiple of this chapter's W.grad", ns["predicted_multiple"], mistakes=[
            Mistake(multiple(4), "zero_() empties W.grad: only the two walks after it count.",
                    see("01", "`.grad` accumulates")),
            Mistake(replaced, "Each walk adds to W.grad, it does not replace it: two walks after "
                    "zero_() leave twice the gradient.", see("01", "`.grad` accumulates")),
        ]),
        Ask("One more avg.backward() then", "error", kind="choice",
            choices=("error", "W.grad becomes 3×", "W.grad stays 2×"), mistakes=[
                Mistake("W.grad becomes 3×", "The walk before had no retain_graph=True: it freed "
                        "the saved values, so a further walk fails.",
                        see("01", "Pitfalls: `.grad` of a non-leaf, and a second `backward()`")),
                Mistake("W.grad stays 2×", "A walk over a freed graph does not silently do "
                        "nothing: it raises an error.",
                        see("01", "Pitfalls: `.grad` of a non-leaf, and a second `backward()`")),
            ]),
    ]


@exercise("01.2")
def _(ns):
    layer, W, b, base = ns["layer"], ns["W"], ns["b"], ns["W_grad_implicit"]
    Wc, bc = leaf(W), leaf(b)
    y_pred, _, avg = layer(Wc, bc)
    y_pred.register_hook(lambda g: None)             # a hook whose result is not used
    avg.backward()
    ignored = float((Wc.grad / base).mean().item())
    answer = ns["predicted_b_grad_after_detach"]
    return "predict the two changes", [
        Ask("(a) With the hook: W.grad is this many times the chapter's", ns["predicted_hook_factor"],
            mistakes=[
                Mistake(ignored, "A hook that returns a tensor replaces the gradient, and "
                        "everything upstream of y_pred is built from it.",
                        see("01", "Gradients of intermediate tensors: `retain_grad` and hooks")),
                Mistake(4, "The gradient is doubled once, where it passes y_pred; W and b both "
                        "get twice theirs, not four times.",
                        see("01", "Gradients of intermediate tensors: `retain_grad` and hooks")),
            ]),
        Ask("(b) With b.detach(): b.grad is", "None" if answer is None else str(answer),
            kind="choice", choices=("None", "zeros", "this chapter's b.grad"), mistakes=[
                Mistake("zeros", "No edge leads back to b, so nothing is ever written to "
                        "b.grad: it stays None, not zeros.",
                        see("01", "Cutting the graph: `detach`, `no_grad`, and Python control flow")),
                Mistake("this chapter's b.grad", "detach cuts the graph: b's value is used, "
                        "but no gradient reaches b.",
                        see("01", "Cutting the graph: `detach`, `no_grad`, and Python control flow")),
            ]),
    ]


# -- 01b: the chain rule in numbers --------------------------------------------------------
@exercise("01b.1")
def _(ns):
    b_grad, x, p = ns["post_b_grad"], ns["x"], ns["y_pred"].detach()
    return "predict the post's W.grad", [Ask("The post's W.grad", ns["predicted_W_grad"], mistakes=[
        Mistake(ns["W_grad_implicit"], "That is this page's W.grad, for its own W and b; "
                "the post's b.grad gives the post's.", see("01b", "The chain rule with the actual numbers")),
        Mistake(b_grad[:, :1] @ x[:1], "Both outputs reach W: dL/dW = (dL/dz) x sums over "
                "both entries of b.grad, not the first one alone.",
                see("01b", "Each node sends a vector-Jacobian product")),
        Mistake((b_grad * p * (1 - p)) @ x, "b.grad already is dL/dz, past the sigmoid: do not "
                "multiply by σ'(z) = p(1 - p) again.", see("01b", "The chain rule with the actual numbers")),
    ])]


@exercise("01b.2")
def _(ns):
    p, ones = ns["p"], ns["ones"]
    return "predict b.grad", [Ask("b.grad", ns["predicted_b_grad"], mistakes=[
        Mistake(-(ones - p), "The chain rule goes on through the sigmoid: multiply by its "
                "derivative p(1 - p).", see("01b", "The chain rule with the actual numbers")),
        Mistake(-2 * (ones - p) * p * (1 - p), "The loss is the sum over 2: its ½ cancels the 2 "
                "of the square.", see("01b", "The chain rule with the actual numbers")),
        Mistake(ns["g_z"], "That is the old b.grad: the first target changed from 0 to 1, so "
                "its entry (y - p) changes sign.", see("01b", "The chain rule with the actual numbers")),
    ])]


# -- 02: masks -------------------------------------------------------------------------------
@exercise("02.1")
def _(ns):
    x = ns["x"]
    return "predict x.grad", [Ask("x.grad", ns["predicted_x_grad"], mistakes=[
        Mistake(grad_of(lambda t: al.where(t >= 0, t ** 2, -t), x), "At x = 0 the condition "
                "0 > 0 is false: the second branch, -x, decides (gradient -1).",
                see("02", "The rule in math")),
        Mistake(grad_of(lambda t: t ** 2 - t, x), "where sends each entry's gradient to the "
                "branch the mask picks, never to both.", see("02", "The rule in math")),
        Mistake(al.where(x > 0, x ** 2, -x).detach(), "That is f(x) itself; x.grad is its "
                "slope.", see("02", "The rule in math")),
    ])]


@exercise("02.2")
def _(ns):
    pts = al.tensor(ns["points"])
    return "predict relu's and clamp's gradients", [
        Ask("Gradient of relu at the points", ns["predicted_relu_grad"], mistakes=[
            Mistake(grad_of(lambda t: al.where(t >= 0, t, 0.), pts), "x > 0 is strict: at "
                    "x = 0 it picks the constant 0, gradient 0.", see("02", "Case 2: one branch is `x`")),
            Mistake(grad_of(lambda t: t, pts), "Where relu outputs the constant 0, no gradient "
                    "flows: 0 for x <= 0.", see("02", "Case 2: one branch is `x`")),
        ]),
        Ask("Gradient of clamp(x, -1, 1) at the points", ns["predicted_clamp_grad"], mistakes=[
            Mistake(grad_of(lambda t: al.where(t <= -1, -1., al.where(t >= 1, 1., t)), pts),
                    "At ±1 neither strict comparison holds, so x itself is selected: gradient 1.",
                    see("02", "The rule in math")),
            Mistake(grad_of(lambda t: t, pts),
                    "Outside the bounds clamp returns a constant, so the gradient there is 0.",
                    see("02", "Case 2: one branch is `x`")),
        ]),
    ]


@exercise("02.3")
def _(ns):
    x, y = ns["x"].detach(), ns["y"].detach()
    return "predict z, x.grad and y.grad", [
        Ask("z", ns["predicted_z"], mistakes=[
            Mistake(x * y, "Where y > 0 is false, z takes the second branch, y².",
                    see("02", "Case 3: both branches are tensors")),
        ]),
        Ask("x.grad", ns["predicted_x_grad"], mistakes=[
            Mistake(y, "x is only in the first branch: where the mask is false it gets 0.",
                    see("02", "Case 3: both branches are tensors")),
        ]),
        Ask("y.grad", ns["predicted_y_grad"], mistakes=[
            Mistake(al.where(y > 0, x, 0. * x), "y is in both branches: where the mask is false "
                    "it gets d(y²)/dy = 2y.", see("02", "Case 3: both branches are tensors")),
            Mistake(x + 2 * y, "where picks one branch per entry; the two branches' gradients "
                    "are never added.", see("02", "The rule in math")),
        ]),
    ]


# -- 02b: masks in practice ---------------------------------------------------------------
@exercise("02b.1")
def _(ns):
    a, b = ns["a"], ns["b"]
    def both(fn):
        ga, gb = grad_of(fn, a, b)
        return [ga.tolist(), gb.tolist()]

    to_a = both(lambda s, t: al.where(s >= t, s, t))
    split = both(al.maximum)
    to_b = both(lambda s, t: al.where(s > t, s, t))
    tie = see("02b", "Kinks and ties")
    return "predict the gradients at the ties", [
        Ask("maximum: [a.grad, b.grad]", list(ns["predicted_maximum"]), mistakes=[
            Mistake(to_a, "maximum does not give a tie to a: it splits the gradient in half.", tie),
            Mistake(to_b, "That is where's choice; maximum splits a tie in half between a and b.", tie),
        ]),
        Ask("where(a > b, a, b): [a.grad, b.grad]", list(ns["predicted_where"]), mistakes=[
            Mistake(split, "where does not split a tie: a > b is false there, so b takes it all.", tie),
            Mistake(to_a, "a > b is strict: at a tie the mask is false and b is picked.", tie),
        ]),
    ]


@exercise("02b.2")
def _(ns):
    x = ns["x"].detach()
    c = x.clamp(-1, 1)
    ste = see("02b", "The straight-through estimator")
    return "predict y and x.grad", [
        Ask("y", ns["predicted_y"], mistakes=[
            Mistake(c, "The value is sign(c): the detached part (sign(c) - c) is added to c.", ste),
        ]),
        Ask("x.grad", ns["predicted_grad"], mistakes=[
            Mistake(grad_of(lambda t: al.sign(t.clamp(-1, 1)), x), "The live part is c: "
                    "(sign(c) - c).detach() sends nothing, so the gradient is clamp's, not "
                    "sign's zero.", ste),
            Mistake(grad_of(lambda t: t, x), "x is clamped first: outside [-1, 1] the gradient "
                    "is 0.", ste),
            Mistake(grad_of(lambda t: al.where((t > -1) & (t < 1), t, t.detach()), x),
                    "At -1 and 1 clamp counts x as inside: gradient 1 there.",
                    see("02", "The rule in math")),
        ]),
    ]


@exercise("02b.3")
def _(ns):
    name = {True: "finite", False: "NaN"}
    safe = see("02b", "The pitfall: a softmax row with nothing to attend to")
    return "finite or not?", [
        Ask("(a) filled with masked_fill: Wq.grad is", name[ns["predicted_finite_when_filled"]],
            kind="choice", choices=("finite", "NaN"), mistakes=[
                Mistake(name[not ns["predicted_finite_when_filled"]], "masked_fill's rule writes "
                        "0 into the gradient where it filled, and all of row 2 was filled: the "
                        "NaN stops there.", safe)]),
        Ask("(b) added as a bias: Wq.grad is", name[ns["predicted_finite_when_added"]],
            kind="choice", choices=("finite", "NaN"), mistakes=[
                Mistake(name[not ns["predicted_finite_when_added"]], "Addition passes its "
                        "gradient on unchanged, NaN included, and X @ Wq spreads it into every "
                        "entry of Wq.grad.", safe)]),
    ]


@exercise("02b.4")
def _(ns):
    idx, seed = ns["idx"].tolist(), [1., 2., 3., 4.]
    last, first, counted = np.zeros(4), np.zeros(4), np.zeros(4)
    for k, i in enumerate(idx):
        last[i] = seed[k]             # a later pick replaces an earlier one
        counted[i] += 1               # the picks counted, the seed forgotten
        if first[i] == 0:
            first[i] = seed[k]
    repeats = see("02b", "Repeated indices")
    return "a word used three times", [Ask("x.grad", ns["predicted_grad"], mistakes=[
        Mistake(al.tensor(last), "The copies do not replace each other: every pick sends its "
                "seed back, and they add up, 1 + 3 + 4 at x[3].", repeats),
        Mistake(al.tensor(first), "x[3] is picked three times, not once: each of the three "
                "outputs sends it its seed.", repeats),
        Mistake(al.tensor(counted), "That counts the picks; each pick sends back its own seed "
                "entry, not 1.", repeats),
    ])]

# -- 03: the seed ----------------------------------------------------------------------------
@exercise("03.1")
def _(ns):
    M, target = ns["M"], ns["x"].grad
    jv = al.tensor(np.linalg.solve(M._data.T, target._data.reshape(-1)).reshape(1, -1))
    return "find the seed", [Ask("The seed v", ns["predicted_seed"], mistakes=[
        Mistake(target, "The seed is dL/dy, not x.grad: x.grad = v Mᵀ, so solve for v.",
                see("03", "The seed is $\\partial L / \\partial y$ of a loss you did not write", "The seed is ∂L/∂y of a loss you did not write")),
        Mistake(jv, "That solves Jv = [5, 11] with J = Mᵀ (Jacobian-vector); backward "
                "computes vᵀJ = v Mᵀ.", see("03", "Vector-Jacobian, not Jacobian-vector")),
    ])]


@exercise("03.2")
def _(ns):
    losses = ns["layer_losses"](ns["W"], ns["b"])
    (mean_seed,) = al.autograd.grad(losses.sum() / 2, losses)
    answer = ns["predicted_seed"]
    return "the seed of a weighted loss", [Ask("The seed", answer, mistakes=[
        Mistake(mean_seed, "[½, ½] is avg's seed; L weights the losses by 0.1 and 0.9, and "
                "those weights are its seed.", see("03", "From `losses` to `avg`: the seed ½")),
        Mistake(answer / 2, "No extra ½ here: the weights of a weighted sum are the seed "
                "themselves.", see("03", "From `losses` to `avg`: the seed ½")),
        Mistake(answer[:, [1, 0]], "The first weight goes with the first loss: [0.1, 0.9] in "
                "the order of losses.", see("03", "The seed is $\\partial L / \\partial y$ of a loss you did not write", "The seed is ∂L/∂y of a loss you did not write")),
    ])]


@exercise("03.3")
def _(ns):
    x, y, answer = ns["x"].detach(), ns["y"].detach(), ns["predicted_x_grad"]
    k = ns["k_ex"]
    return "predict x.grad", [Ask("x.grad", answer, mistakes=[
        Mistake(y, "That is y, the value 2ᵏx; its derivative is 2ᵏ in every entry.",
                see("03", "A tensor that doubles until it is large")),
        Mistake(answer * (x != 0), "The entry x₂ = 0 still gets 2ᵏ: the derivative of 2ᵏx₂ "
                "does not depend on x₂.", see("03", "A tensor that doubles until it is large")),
        Mistake(al.ones(3) * 2.0 ** (k - 1), "Count again: the loop stops at the first k with "
                "|y| ≥ 1000, and 2¹⁰ · 0.5 = 512 is not there yet.",
                see("03", "A tensor that doubles until it is large")),
    ])]


@exercise("03.4")
def _(ns):
    x, M, seed = ns["x"], ns["M"], ns["seed"]
    once = grad_of(lambda t: t @ M * seed, x)
    return "two calls, no zeroing", [
        Ask("x.grad after the two calls", ns["predicted_x_grad"], mistakes=[
            Mistake(once, "The second call adds to x.grad, it does not replace it: twice "
                    "[3, 7].", see("03", "Several seeds on one graph: `retain_graph` and zeroing")),
        ]),
        Ask("The single seed", ns["predicted_single_seed"], mistakes=[
            Mistake(seed, "One call with [1, 1] gives half: seeds add as the gradients do "
                    "(backward is linear in the seed).", see("03", "Backward is linear in the seed")),
            Mistake(ns["twice"], "The seed is dL/dy, not the gradient: [6, 14] = v Mᵀ for "
                    "v = [2, 2].", see("03", "Backward is linear in the seed")),
        ]),
    ]


# -- 04: grad_outputs --------------------------------------------------------------------------
@exercise("04.1")
def _(ns):
    x = ns["x"].detach()
    xl = leaf(x)
    y = al.outer(xl, xl)
    (ones_grad,) = al.autograd.grad(y, xl, grad_outputs=al.ones(4, 4))
    pit = see("04", "The pitfall: a seed with $x$'s shape", "The pitfall: a seed with x's shape")
    return "the trace's seed", [
        Ask("The seed", ns["predicted_seed"], mistakes=[
            Mistake(al.ones(4, 4), "A seed of ones is the seed of y.sum(); the trace weights the "
                    "diagonal by 1 and the rest by 0.", see("04", "The idea: a vector-Jacobian "
                    "product with a tensor-shaped \"vector\"")),
            Mistake(al.ones(4), "grad_outputs has y's shape (4 × 4), not x's.", pit),
        ]),
        Ask("The gradient", ns["predicted_grad"], mistakes=[
            Mistake(x, "y = x xᵀ uses x twice: the seed goes through both, (v + vᵀ) x = 2x.",
                    see("04", "By hand, one step at a time")),
            Mistake(ones_grad, "That is the gradient of y.sum() (a seed of ones); the trace's "
                    "seed is the identity.", see("04", "By hand, one step at a time")),
        ]),
    ]


@exercise("04.2")
def _(ns):
    x, y = ns["x"].detach(), ns["y"].detach()
    xl = leaf(x)
    (of_y,) = al.autograd.grad(al.outer(xl, xl), xl, grad_outputs=al.ones(4, 4))
    dL_dy = 3 * y ** 2
    chain = see("04", "A longer chain: $x \\to y = x x^\\top \\to z = y^2$", "A longer chain: x → y = x xᵀ → z = y²")
    return "the cube's gradient", [Ask("The result", ns["predicted"], mistakes=[
        Mistake(of_y, "The cube's step comes first: the seed at y is 3y², not ones.", chain),
        Mistake(dL_dy @ x, "y = x xᵀ uses x twice: the seed goes through both, 2 (3y²) x.", chain),
        Mistake(dL_dy.sum(1), "That stops at dL/dy; one more step takes it to x: 2 (3y²) x.", chain),
    ])]


@exercise("04.3")
def _(ns):
    x0 = al.tensor([1., 2., 3., 4.])
    cols = []
    for k in range(16):                      # the seed -> gradient map, one seed at a time
        xl = leaf(x0)
        (g,) = al.autograd.grad(al.outer(xl, xl), xl, grad_outputs=al.tensor(
            np.eye(16)[k].reshape(4, 4)))
        cols.append(g._data)
    matrix = np.stack(cols, axis=1)
    one = np.zeros((4, 4))
    one[0, 1] = 1.
    pit = see("04", "Who plays which role, and their shapes")
    return "a seed that sees nothing", [Ask(
        "A 4 × 4 seed v, not all zeros", ns["v"], kind="linear", matrix=matrix,
        target=("at x = [1, 2, 3, 4] this seed sends back", al.zeros(4)),
        example="[[0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]", mistakes=[
            Mistake(al.zeros(4, 4), "All zeros is the seed the question rules out: look for "
                    "entries that cancel.", pit),
            Mistake(one, "One entry alone is seen: y is symmetric (y₀₁ = y₁₀), so the mirror "
                    "entry must cancel it: v₁₀ = -1.", pit),
            Mistake(one + one.T, "A symmetric seed doubles instead of cancelling: the gradient "
                    "sees v + vᵀ.", pit),
        ])]


# -- 05: the Jacobian --------------------------------------------------------------------------
@exercise("05.1")
def _(ns):
    s, formula = ns["s"], ns["formula"]
    eye = al.eye(4)
    math_ = see("05", "The idea in math")
    return "the Jacobian of softmax", [
        Ask("Each row's sum (four numbers)", formula.sum(1), mistakes=[
            Mistake(al.ones(4), "The outputs always add up to 1, so their changes add up to 0: "
                    "each row sums to 0.", math_),
            Mistake((eye * s).sum(1), "That forgets the off-diagonal terms -sᵢsⱼ: each row is "
                    "sᵢ - sᵢ Σⱼ sⱼ = 0.", math_),
        ]),
        Ask("J at z (4 × 4)", formula, rtol=2e-2, mistakes=[
            Mistake(eye * s, "Every sᵢ depends on every zⱼ through the sum S: the off-diagonal "
                    "entries are -sᵢsⱼ.", math_),
            Mistake(-formula, "Check the sign: ∂sᵢ/∂zᵢ = sᵢ - sᵢ² is positive.", math_),
        ]),
    ]


@exercise("05.2")
def _(ns):
    rev, fwd, point = ns["reverse_cost"], ns["forward_cost"], ns["point"]
    outputs = ns["J_rev"].shape[0]
    cost = see("05", "What each way costs")
    walks, passes = rev.backward, fwd.jvp
    return "which way is cheaper?", [
        Ask("Backward walks for the row loop", walks, mistakes=[
            Mistake(point.numel(), "Reverse mode gets a row per walk, and J has one row per "
                    "output: 3.", see("05", "Row by row: one-hot seeds")),
        ]),
        Ask("Forward passes for the column loop", passes, mistakes=[
            Mistake(outputs, "Forward mode gets a column per pass, and J has one column per "
                    "input: 1000.", see("05", "Column by column: forward mode")),
        ]),
        Ask("Reverse mode is cheaper by a factor of about", passes / (walks + rev.forward),
            rtol=0.35, atol=0, example="50", mistakes=[
                Mistake((walks + rev.forward) / passes, "Reverse mode is the cheaper one here: "
                        "1 call of the function + 3 walks = 4 passes, against 1000 forward-mode "
                        "passes.", cost),
                Mistake(1, "A walk costs about a forward pass, but forward mode makes 1000 passes "
                        "where reverse mode makes 1 + 3 = 4.", cost),
            ]),
    ]


@exercise("05.3")
def _(ns):
    row_0, row_1 = ns["row_0"], ns["row_1"]
    lin = see("05", "The post's recipe: one masked seed per row")
    return "seeds that pile up", [
        Ask("W.grad", ns["predicted_W_grad"], mistakes=[
            Mistake(row_0, "backward adds into W.grad; never zeroed, it keeps all three calls.",
                    lin),
            Mistake(row_0 + row_1, "The seed [1, 0] ran twice: row₀ counts twice.", lin),
        ]),
        Ask("The single seed", ns["predicted_single_seed"], mistakes=[
            Mistake(al.tensor([[1., 1.]]), "[1, 1] gives row₀ + row₁; row₀ counted twice needs "
                    "the weight 2.", lin),
        ]),
    ]


# -- 05b: what backward keeps --------------------------------------------------------------
@exercise("05b.1")
def _(ns):
    x = ns["x"].detach()
    y = leaf(x).sigmoid()
    y[y < 0.5] = 0
    try:
        y.sum().backward()
        outcome = "fine"
    except RuntimeError:
        outcome = "error"
    s = x.sigmoid()
    keeps = see("05b", "What each rule keeps")
    return "clipping a sigmoid in place", [
        Ask("y.sum().backward() after the write", outcome, kind="choice",
            choices=("error", "fine", "stale"), mistakes=[
                Mistake("fine", "SigmoidBackward0 keeps its output y, and the write changes it: "
                        "backward refuses.", keeps),
                Mistake("stale", "The version counter sees the write to y, so backward stops "
                        "with an error rather than read a changed y.", see("05b", "The version counter")),
            ]),
        Ask("x.grad with the fix (where, out of place)", ns["x"].grad, mistakes=[
            Mistake(s * (1 - s), "Where the value was clipped to 0, the gradient is 0 too.",
                    see("05b", "Masked assignment is a mask")),
            Mistake((s >= 0.5) * 1.0, "The kept entries still pass through the sigmoid: "
                    "their gradient is y(1 - y).", keeps),
        ]),
    ]


@exercise("05b.2")
def _(ns):
    from autograd_lab.teaching.widgets.inplace import WRITES, InplaceExplorer
    row = list(ns["row"])

    def swap(i, word):
        return [word if k == i else w for k, w in enumerate(row)]

    exp_row = [InplaceExplorer([0.5, 1.0, 2.0], op="y = x.exp()", write=w.code).outcome
               for w in WRITES]
    codes = [w.code for w in WRITES]
    return "a row of the explorer", [Ask(
        "The nine outcomes, in order", ns["predicted_row"], kind="words",
        choices=("fine", "error", "stale"), example="fine, error, stale, ...", mistakes=[
            Mistake(exp_row, "That is the row of y = x.exp(), whose rule keeps y; "
                    "PowBackward0 keeps x, never y.", see("05b", "What each rule keeps")),
            Mistake(swap(codes.index("x.data.mul_(2)"), "error"), "A write through .data is "
                    "not counted: the rule reads 2x with no error (stale).",
                    see("05b", "`detach()` against `.data`")),
            Mistake(swap(codes.index("with al.no_grad(): x.mul_(2)"), "stale"), "no_grad stops "
                    "the recording, not the version counter: the write is counted, and backward "
                    "fails.", see("05b", "Grad modes in one table")),
        ])]


@exercise("05b.3")
def _(ns):
    h1, w, xs = ns["h1"].detach(), ns["w"].detach(), ns["xs"]
    h0 = (h1 - xs[0]) / w
    answer = ns["predicted_step1"]
    loop = see("05b", "The second backward in a training loop")
    return "the carried state's gradient", [Ask("The gradient with respect to w", answer, mistakes=[
        Mistake(h1, "w is used twice: d h₂/dw = h₁ + w · (d h₁/dw) = h₁ + w · h₀.", loop),
        Mistake(w * h0, "The last step's own use of w counts too: add h₁.", loop),
        Mistake(answer + h0, "That includes step 0's [1, 1]; on an empty w.grad only step 1's "
                "part is left.", loop),
    ])]


# -- 05c: what the graph keeps alive ----------------------------------------------------------
@exercise("05c.1")
def _(ns):
    x = ns["x"].detach()
    one = x.numel() * x.element_size()        # bytes of one value of x's size
    counting = see("05c", "Counting what a graph keeps")
    return "bytes of a chain", [Ask("Bytes count_saved reports", ns["predicted_bytes"], mistakes=[
        Mistake(3 * one, "x is a leaf: its owner keeps it, and count_saved leaves it out.", counting),
        Mistake(6 * one, "Each rule keeps only what it reads: exp its output, * 2 the number 2, "
                "sin its input, sum no tensor (only a shape).", see("05b", "What each rule keeps")),
        Mistake(one, "exp(x) * 2 is a new tensor, not exp's output: sin keeps it beside it.",
                counting),
    ])]


@exercise("05c.2")
def _(ns):
    act = ns["h1"].numel() * ns["h1"].element_size()   # one activation, 128 x 256 float32
    block = see("05c", "Checkpointing: run the block again")
    return "one layer per block", [
        Ask("Bytes kept without checkpointing", ns["predicted_kept"], mistakes=[
            Mistake(4 * act, "h0 is read by ReLU 0 and by Linear 1, h1 by ReLU 1 and by pow: "
                    "each is counted once.", see("05c", "Counting what a graph keeps")),
            Mistake(act, "Both ReLUs keep their outputs: h0 and h1.",
                    see("05c", "Counting what a graph keeps")),
        ]),
        Ask("Bytes kept with each layer checkpointed", ns["predicted_kept_checkpointed"], mistakes=[
            Mistake(0, "A checkpoint keeps its block's input: h0, for the second block; and pow "
                    "keeps h1, outside any block.", block),
            Mistake(act, "pow keeps h1 too, and it is outside any block.", block),
            Mistake(3 * act, "h0 kept by the checkpoint is the same memory as h0 saved inside the "
                    "first block, which keeps only a placeholder: count it once.", block),
        ]),
    ]
# -- 05d: your own backward ----------------------------------------------------------------
@exercise("05d.1")
def _(ns):
    x = ns["x"].detach()
    pitfall = see("05d", "The pitfall: a backward in NumPy")
    return "a second derivative through NumPy", [Ask("h, the second derivative", ns["predicted_h"], mistakes=[
        Mistake(12 * x, "That is the true 12x, as with a backward in tensor operations; CubeNp's "
                "backward returns a constant, so its 6x never reaches h.", pitfall),
        Mistake(0 * x, "Only CubeNp's term is lost: x ** 2 * x is recorded and gives its 6x.",
                pitfall),
        Mistake(3 * x ** 2 + 3 * x ** 2, "That is the first derivative, g = 3x² + 3x²; h is "
                "the derivative of g.sum().", see("05d", "Derivatives twice")),
    ])]


@exercise("05d.2")
def _(ns):
    w = ns["w"].detach()
    ctx = see("05d", "What ctx offers")
    return "a tensor kept on ctx", [Ask("w.grad", ns["predicted_grad"], mistakes=[
        Mistake(2 * w, "That is the gradient at the forward's numbers; ctx.x is the tensor "
                "itself, read at backward time, after add_ changed it.", ctx),
        Mistake(2 * w + 1, "backward computes 2 · ctx.x with ctx.x already x + 1: the 1 is "
                "doubled too, 2(x + 1).", ctx),
    ])]


# -- 06: inside autograd_lab ---------------------------------------------------------------
@exercise("06.1")
def _(ns):
    order = [step.name for step in ns["trace"].steps]

    def moved(name, after):
        out = [n for n in order if n != name]
        out.insert(out.index(after) + 1, name)
        return out

    why = see("06", "Why this order")
    return "predict the visit order", [Ask(
        "The grad_fn names in the order visited", ns["predicted_order"], kind="words",
        choices=tuple(dict.fromkeys(order)), example="SumBackward0, ...", mistakes=[
            Mistake(moved("SinBackward0", "ExpBackward0"), "Among nodes ready at once, the one "
                    "recorded last runs first: v was made after u, so SinBackward0 runs first.", why),
            Mistake(moved("ExpBackward0", "AddBackward0"), "ExpBackward0 must wait: the product "
                    "also sends to it, so it runs after MulBackward0.", see("06", "The walk")),
        ])]


@exercise("06.2")
def _(ns):
    xs = ns["xs"].detach()
    (_, tangent) = al.func.jvp(ns["Square"].apply, (xs,), (al.ones(3, dtype=xs.dtype),))
    rule = see("06", "Writing your own operation")
    return "the JVP of Square", [Ask("The JVP at x = [-1.5, 0, 2] with a tangent of ones",
                                     tangent, mistakes=[
        Mistake(xs, "The derivative of x² is 2x: the JVP is 2x · t.", rule),
        Mistake(xs ** 2, "That is the value x²; the JVP is its derivative times t, 2x · t.", rule),
        Mistake(2 * al.ones(3), "The derivative 2x reads x: multiply by x, which setup_context saves.",
                rule),
    ])]
