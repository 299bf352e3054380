"""The rows of ``al.einsum``: an equation such as ``"ij,jk->ik"`` names each dimension of
each operand with a letter; letters shared by operands are multiplied together, letters
missing from the output are summed away.

An equation is first spelled out (:func:`spelled`): every ellipsis becomes letters of its
own, an output left implicit is written down, and torch's checks run with torch's
messages.  After that every rule is an einsum too, so the rules record and differentiate
again like any row of the table:

* the forward is NumPy's einsum;
* the gradient of an operand contracts the output's gradient with the other operands,
  onto that operand's letters (a letter only it has is spread back by broadcasting, a
  letter it repeats puts the gradient on a diagonal: :data:`diagonal_put`);
* the tangent is a sum of einsums, each with one operand replaced by its tangent;
* under ``vmap`` (the batch rule) the batch dimensions get letters of their own.
"""
import functools
import string

import numpy as np

from . import batching
from .core.dtypes import scalar_type_name
from .core.recording import Op, name_by_call, register
from .core.rules import expand, reshape

LETTERS = string.ascii_uppercase + string.ascii_lowercase     # torch's order of subscripts


def _error(message):
    return RuntimeError(f"einsum(): {message}")


def _terms(equation):
    """The equation's input terms and output term (None when implicit), as lists of
    letters and "..." markers, each checked for torch's grammar.  Spaces are skipped."""
    lhs, arrow, rhs = equation.partition("->")
    offsets = [0]
    for term in lhs.split(","):
        offsets.append(offsets[-1] + len(term) + 1)
    terms = [_letters(term, start, f"operand {i}") for i, (term, start) in
             enumerate(zip(lhs.split(","), offsets))]
    out = _letters(rhs, len(lhs) + 2, "output") if arrow else None
    return terms, out


def _letters(term, start, what):
    found, i = [], 0
    while i < len(term):
        c = term[i]
        if c == ".":
            if term[i:i + 3] != "...":
                raise _error(f"found '.' for {what} that is not part of any ellipsis (...)"
                             if what == "output" else
                             f"found '.' for {what} that is not part of any ellipsis")
            if "..." in found:
                raise _error(f"found '.' for {what} but an ellipsis (...) was already found"
                             if what == "output" else
                             f"found '.' for {what} for which an ellipsis was already found")
            found.append("...")
            i += 3
            continue
        if c not in LETTERS and c != " ":
            raise _error(f"invalid subscript given at index {start + i} in the equation string, "
                         "subscripts must be in [a-zA-Z]")
        if c != " ":
            found.append(c)
        i += 1
    return found


def fresh(used, n):
    """``n`` letters none of ``used`` has (for an ellipsis, or for batch dimensions)."""
    free = [c for c in LETTERS if c not in used]
    if n > len(free):
        raise _error("autograd_lab has run out of letters: an equation may name at most 52 "
                     "dimensions, ellipses and vmap's batch dimensions included")
    return "".join(free[:n])


@functools.lru_cache(maxsize=512)
def spelled(equation, shapes):
    """``(inputs, output, sizes)``: one string per operand with one letter per dimension,
    the output's, and each letter's size (a 1 broadcast to the others'), for operands of
    ``shapes``; an ellipsis becomes the same letters in every operand (right-aligned, as
    dimensions broadcast).  Raises torch's errors."""
    terms, out = _terms(equation)
    if len(terms) > len(shapes):
        raise _error("fewer operands were provided than specified in the equation")
    if len(terms) < len(shapes):
        raise _error("more operands were provided than specified in the equation")
    spans = []
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        named = len(term) - ("..." in term)
        if "..." not in term and named != len(shape):
            raise _error(f"the number of subscripts in the equation ({named}) does not match the "
                         f"number of dimensions ({len(shape)}) for operand {i} and no ellipsis was given")
        if named > len(shape):
            raise _error(f"the number of subscripts in the equation ({named}) is more than the "
                         f"number of dimensions ({len(shape)}) for operand {i}")
        spans.append(len(shape) - named if "..." in term else 0)
    dots = fresh(equation, max(spans, default=0))
    inputs = tuple("".join(dots[len(dots) - n:] if c == "..." else c for c in term)
                   for term, n in zip(terms, spans))
    sizes = _sizes(inputs, shapes, dots)
    if out is None:                   # implicit: the ellipsis, then letters seen once, sorted
        once = [c for c in LETTERS if c not in dots and "".join(inputs).count(c) == 1]
        return inputs, dots + "".join(once), sizes
    for c in out:
        if c != "..." and not any(c in term for term in terms):
            raise _error(f"output subscript {c} does not appear in the equation for any input operand")
        if c != "..." and out.count(c) > 1:
            raise _error(f"output subscript {c} appears more than once in the output")
    return inputs, "".join(dots if c == "..." else c for c in out), sizes


def _sizes(inputs, shapes, dots):
    """Each letter's size: it has one, or 1 (which broadcasts), as torch checks."""
    seen = {}
    for i, (term, shape) in enumerate(zip(inputs, shapes)):
        own = {}                      # dimension by dimension, as torch checks them
        for d, (c, n) in enumerate(zip(term, shape)):
            if c in own and own[c] != n:
                raise _error(f"subscript {c} is repeated for operand {i} but the sizes don't match, "
                             f"{n} != {own[c]}")
            own[c] = n
            m = seen.get(c, 1)
            if n != m and n != 1 and m != 1:
                if c in dots:         # (sic: torch's message has no space after the number)
                    raise _error(f"dimension {d} covered by ellipsis in operand {i}has size {n} "
                                 f"which does not broadcast with previously seen ellipsis with "
                                 f"size {m} for the respective dimension")
                raise _error(f"subscript {c} has size {n} for operand {i} which does not broadcast "
                             f"with previously seen size {m}")
            seen[c] = m if n == 1 else n
    return seen


def _once(term):
    """Each letter of ``term`` once, in order ("iij" -> "ij")."""
    return "".join(dict.fromkeys(term))


def _spell(equation, xs):
    return spelled(equation, tuple(tuple(x.shape) for x in xs))


def _name(args, params):
    """The node torch's einsum records last.  One operand: a sum if a letter goes, else
    a permute.  Several: torch contracts them two at a time; the last step ends in a view
    of a batched matrix product if the equation sums a letter away, else it is a
    multiplication."""
    inputs, out, _ = _spell(params["equation"], args)
    if len(inputs) == 1:
        return "SumBackward1" if set(inputs[0]) - set(out) else "PermuteBackward0"
    return "ViewBackward0" if set("".join(inputs)) - set(out) else "MulBackward0"


def _einsum_forward(*xs, equation):
    inputs, out, _ = _spell(equation, xs)
    dtype = xs[0].dtype
    for x in xs[1:]:
        if x.dtype != dtype:
            raise RuntimeError(f"expected scalar type {scalar_type_name(dtype)} but found "
                               f"{scalar_type_name(x.dtype)}")
    if dtype.kind in "biu" and set("".join(inputs)) - set(out):
        if len(xs) == 1:              # a sum, as Tensor.sum: integers and bools add up in int64
            xs = (xs[0].astype(np.int64),)
        elif dtype == np.bool_:       # torch multiplies bools, but has no matrix product of them
            raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    return np.einsum(",".join(inputs) + "->" + out, *xs, optimize=len(xs) > 1)


def _einsum_vjp(g, y, *xs, equation):
    """Each operand's gradient: the output's gradient contracted with the other operands,
    onto the operand's own letters.  ``g`` may carry a batch of seeds in front."""
    inputs, out, sizes = _spell(equation, xs)
    lead = fresh("".join(inputs) + out, g.ndim - y.ndim)
    return [_gradient(k, g, lead, out, inputs, xs, sizes) for k in range(len(xs))]


def _gradient(k, g, lead, out, inputs, xs, sizes):
    term, x = inputs[k], xs[k]
    others = [i for i in range(len(xs)) if i != k]
    reached = set(out).union(*[inputs[i] for i in others])
    letters, own = _once(term), dict(zip(term, x.shape))
    # a letter x has as 1 while others have it another size was broadcast: its gradient is summed
    kept = "".join(c for c in letters if c in reached and not (own[c] == 1 != sizes[c]))
    r = einsum(g, *[xs[i] for i in others],
               equation=",".join([lead + out] + [inputs[i] for i in others]) + "->" + lead + kept)
    lead_shape = tuple(g.shape[:len(lead)])
    if kept != letters:               # back to one dim per letter, 1 where summed
        got = dict(zip(kept, r.shape[len(lead):]))
        r = reshape(r, shape=lead_shape + tuple(got.get(c, 1) for c in letters))
    spread = lead_shape + tuple(own[c] for c in letters)
    if tuple(r.shape) != spread:      # a letter only x has, or that only 1s met: broadcast
        r = expand(r, shape=spread)
    if letters != term:               # a repeated letter: the gradient lies on a diagonal
        r = diagonal_put(r, term=term, shape=tuple(x.shape))
    return r


def _einsum_jvp(ts, y, *xs, equation):
    """The output's tangent: one einsum per operand with a tangent, that operand replaced
    by it (its batch of tangents, if any, in front)."""
    inputs, out, _ = _spell(equation, xs)
    total = None
    for k, t in enumerate(ts):
        if t is None:
            continue
        lead = fresh("".join(inputs) + out, t.ndim - xs[k].ndim)
        terms = [lead + s if i == k else s for i, s in enumerate(inputs)]
        operands = [t if i == k else x for i, x in enumerate(xs)]
        term = einsum(*operands, equation=",".join(terms) + "->" + lead + out)
        total = term if total is None else total + term
    return total


def _batch_einsum(op, n, *xs, equation):
    """vmap: the batch dimensions get letters of their own, in front of every operand and
    of the output (an operand not batched has them as 1s, which broadcast)."""
    inputs, out, _ = spelled(equation, tuple(tuple(x.shape[n:]) for x in xs))
    batch = fresh("".join(inputs) + out, n)
    return op(*xs, equation=",".join(batch + s for s in inputs) + "->" + batch + out)


einsum = Op("ViewBackward0", _einsum_forward, vjp_all=_einsum_vjp, jvp_all=_einsum_jvp, saves="inputs")


# -- an operand that repeats a letter ("ii->i") gets its gradient on that diagonal --------
def _diagonal_put_forward(v, term, shape):
    """Zeros of ``shape`` (behind v's batch dims) with ``v`` on the diagonal that ``term``'s
    repeated letters name: out[..., i, i] = v[..., i] for term "ii"."""
    letters = _once(term)
    lead = fresh(term, v.ndim - len(letters))
    out = np.zeros(v.shape[:len(lead)] + tuple(shape), v.dtype)
    np.einsum(f"{lead}{term}->{lead}{letters}", out)[...] = v     # a writable view
    return out


def _diagonal_take(g, term):
    """The diagonal of g that ``term`` names (the inverse of diagonal_put, for its VJP)."""
    lead = fresh(term, g.ndim - len(term))
    return einsum(g, equation=f"{lead}{term}->{lead}{_once(term)}")


diagonal_put = Op("DiagonalBackwardBackward0", _diagonal_put_forward,
                  vjp=(lambda g, y, v, term, shape: _diagonal_take(g, term),),
                  jvp=(lambda t, y, v, term, shape: diagonal_put(t, term=term, shape=shape),),
                  saves=False)


name_by_call({einsum: _name})
register(globals())
batching.register(_batch_einsum, einsum)
batching.register(lambda op, n, v, term, shape: op(v, term=term, shape=shape), diagonal_put)
