"""The rules table as a reader sees it: every operation with its forward, VJP and JVP
rules and its batch rule for vmap, read from the source itself so the book's table cannot
drift from the code.  Every row module registers its rows (``recording.register``): the
core's rows in ``rules.py`` come first, then the shell's (``more_rules.py``,
``einsum_rules.py``, ``nn/loss_rules.py``, ``nn/layer_rules.py``, and nn's activations,
normalization layers, embedding and module hooks).

    >>> from autograd_lab import rulebook
    >>> rulebook.rule("where").vjp
    ('—', 'where(mask, g, 0.0)', 'where(mask, 0.0, g)')
"""
import ast
import functools
import inspect
import re
import sys
from dataclasses import dataclass

import numpy as np

from ..core import rules as core_rules
from ..batching import batch_rule
from ..core.recording import ROWS, Op


@dataclass(frozen=True)
class Rule:
    name: str            # the Python name in its module (rules.mul)
    grad_fn: str         # the node's name in the graph (MulBackward0)
    inputs: tuple        # the rule functions' input names, e.g. ('a', 'b')
    forward: str         # the NumPy forward, as source text
    vjp: tuple           # one expression per input (or one for all inputs)
    jvp: tuple
    saves: bool | str | tuple   # what the rules read (Op.saves): True (inputs and output),
                                # "inputs", "others", "output", input positions, "index" or
                                # False (shapes only); a backward frees saved values
    differentiable: bool
    keeps: str = ""      # the same in words: "the output", "a and b", "nothing", ...
    batch: str = "—"     # how al.vmap runs it on a batch (batching.BATCH_RULES): a shared
                         # rule's name (broadcast, reduction), a rule's body, or — (once per sample)
    module: str = "rules"  # the module it lives in: rules, more_rules, einsum_rules, loss_rules, ...


def table():
    """Every row of the table by its Python name, module after module as they registered
    (a row a module imports from another is listed once, where it is defined)."""
    return {name: op for rows in ROWS.values() for name, op in rows.items()}


def _home(op):
    """The name of the module a row is defined in."""
    return next(module for module, rows in ROWS.items() if any(v is op for v in rows.values()))


def _module(short):
    """The row module of that (last) name."""
    return next(m for name, m in sys.modules.items()
                if name.startswith("autograd_lab.") and name.rsplit(".", 1)[-1] == short)


MODULES = tuple(_module(name) for name in ROWS)      # the row modules, in the order they registered


@functools.cache
def _lambdas_by_line(module):
    """Source text of every lambda in a module, keyed by the line it starts on (read once)."""
    source = inspect.getsource(sys.modules[module])
    lines = [line.encode() for line in source.splitlines(keepends=True)]
    found = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Lambda):
            found.setdefault(node.lineno, []).append(
                (_segment(lines, node.body), [a.arg for a in node.args.args]))
    return found


def _segment(lines, node):
    """The source text of ``node`` (ast.get_source_segment, which splits the whole file
    into lines again at every call: seconds for the table's hundred lambdas)."""
    first, last = node.lineno - 1, node.end_lineno - 1
    if first == last:
        return lines[first][node.col_offset:node.end_col_offset].decode()
    return b"".join([lines[first][node.col_offset:], *lines[first + 1:last],
                     lines[last][:node.end_col_offset]]).decode()


def _text(fn):
    """A rule as readable source: a lambda's body, or a named function's signature."""
    if fn is None:
        return "—"
    code = getattr(fn, "__code__", None)
    if code is None:                                  # a NumPy ufunc or builtin
        module = getattr(fn, "__module__", None) or "numpy"
        prefix = "np." if module.startswith("numpy") or isinstance(fn, np.ufunc) else ""
        return prefix + getattr(fn, "__name__", repr(fn))
    if fn.__name__ != "<lambda>":
        return f"{fn.__name__}{inspect.signature(fn)}"
    wanted = list(code.co_varnames[:code.co_argcount])
    for body, args in _lambdas_by_line(fn.__module__).get(code.co_firstlineno, []):
        if args == wanted:
            text = " ".join(body.split())
            # name the row or NumPy function a closure variable stands for (forward ->
            # np.amax; a pooling's back -> max_pool2d_backward)
            for var, cell in zip(code.co_freevars, fn.__closure__ or ()):
                value = cell.cell_contents
                if isinstance(value, Op):
                    text = re.sub(rf"\b{var}\b", _row_name(value), text)
                elif getattr(value, "__code__", None) is not None and value.__name__ != "<lambda>":
                    text = re.sub(rf"\b{var}\b", value.__name__, text)
                elif callable(value) and not hasattr(value, "__code__"):
                    text = re.sub(rf"\b{var}\b", _text(value), text)
            return text
    return "<lambda>"


def _row_name(op):
    """A row's name in the table."""
    return next((name for name, o in table().items() if o is op), op.name)


def _names(op):
    """The grad_fn name(s) an op's nodes get (some depend on the arguments: the function
    the row's module registered, recording.name_by_call)."""
    if op.named is None:
        return op.name
    found = [op.name]
    for params in ({}, {"dim": 0}):
        try:
            found.append(op.named((), params))
        except (IndexError, KeyError, TypeError, ValueError):
            pass
    found += re.findall(r"\w+Backward\d", _source_of(op.named))
    unique = list(dict.fromkeys(n for n in found if "{" not in n))
    return " / ".join(unique)


def _source_of(fn):
    """A function's source, or a lambda's body."""
    return _text(fn) if fn.__name__ == "<lambda>" else inspect.getsource(fn)


def _inputs(op):
    """The inputs' names, read from a rule's arguments (after g and y); inputs a rule takes
    as ``*e`` are e1, e2, ..."""
    rules = op.vjp or op.jvp or ()
    for fn in rules:
        if fn is not None and hasattr(fn, "__code__"):
            code = fn.__code__
            names = code.co_varnames[2:code.co_argcount]
            if code.co_flags & inspect.CO_VARARGS:
                star, extra = code.co_varnames[code.co_argcount + code.co_kwonlyargcount], len(rules) - len(names)
                names += (star,) if extra == 1 else tuple(f"{star}{k}" for k in range(1, extra + 1))
            return tuple(names[:len(rules)])
    if op.vjp_all is not None:
        return ("*inputs",)
    return ()


def _reads_key(op):
    """Whether the op's rules read an index parameter (``key``): a node keeps it, as it
    keeps every parameter, and no backward frees it."""
    rules = [f for f in (op.vjp or ()) + (op.vjp_all,) if hasattr(f, "__code__")]
    return any("key" in f.__code__.co_varnames[:f.__code__.co_argcount + f.__code__.co_kwonlyargcount]
               for f in rules)


def _keeps(saves, inputs, reads_key=False):
    """What a node of the op keeps for its backward, in words (what an in-place change of
    it would spoil, and what a backward frees)."""
    if saves is False and reads_key:
        return "the index it was called with, which no backward frees"
    names = " and ".join(inputs) or "the inputs"
    if saves is True:
        return f"{names} and the output"
    if type(saves) is tuple:
        return " and ".join(inputs[i] for i in saves)
    return {"inputs": names, "others": f"{names} (each for the other's rule)", "output": "the output",
            "index": "the index"}.get(saves, "nothing")


def _batch_text(fn):
    """A batch rule as the table shows it: a named rule by its name, a lambda by its body."""
    if fn is None or fn.__name__ == "<lambda>":
        return _text(fn)
    return fn.__name__.lstrip("_")


def _as_jvp(fn):
    """A rule that serves as VJP and JVP (rules.symmetric), as the JVP column shows it: its
    first argument, the gradient, renamed t (the tangent)."""
    if fn is None:
        return "—"
    g = fn.__code__.co_varnames[0]
    return re.sub(rf"\b{g}\b", "t", _text(fn))


def rules():
    """One :class:`Rule` per row of the table, in the order they are defined."""
    found = []
    for name, op in table().items():
        vjp = tuple(_text(f) for f in op.vjp) if op.vjp else ((_text(op.vjp_all),) if op.vjp_all else ())
        if op.jvp is not None and op.jvp is op.vjp:       # one rule for both (rules.symmetric)
            jvp = tuple(_as_jvp(f) for f in op.jvp)
        else:
            jvp = tuple(_text(f) for f in op.jvp) if op.jvp else ((_text(op.jvp_all),) if op.jvp_all else ())
        inputs = _inputs(op)
        found.append(Rule(name, _names(op), inputs, _text(op.forward), vjp, jvp,
                          op.saves, op.differentiable, _keeps(op.saves, inputs, _reads_key(op)),
                          _batch_text(batch_rule(op)), _home(op)))
    return found


def rule(name):
    """The :class:`Rule` of one operation, by its Python name."""
    for r in rules():
        if r.name == name:
            return r
    raise KeyError(f"the rules table has no operation named {name!r}")


def helpers():
    """{name: source} of the helper functions the rules call (``_unreduce(...)`` and
    the like), each read from the module its row lives in, else from rules.py, else from
    the row module that made it (a row made by another module's function, as the
    paddings' by layer_rules.linear_pair)."""
    found = {}
    for r in rules():
        module = _module(r.module)
        for name in re.findall(r"\b(_[a-z_]+)\(", " ".join(r.vjp + r.jvp)):
            fn = getattr(module, name, None) or getattr(core_rules, name, None) or next(
                vars(m)[name] for m in MODULES if name in vars(m))
            found.setdefault(name, inspect.getsource(fn))
    return dict(sorted(found.items()))


def markdown(differentiable_only=True):
    """The table as Markdown: one row per operation (its name over its grad_fn name and
    what its node keeps), one line per input's rule, and the op's batch rule for vmap."""
    def cell(parts, inputs):
        if len(parts) == len(inputs) and len(parts) > 1:
            return "<br>".join(f"{i}: `{p}`" for i, p in zip(inputs, parts))
        return "<br>".join(f"`{p}`" for p in parts)

    rows = ["| op, its grad_fn, what its node keeps | forward | VJP: gradient to each input (g = dL/dy) | "
            "JVP: tangent of y (t = input's tangent) | vmap: batch rule |",
            "|---|---|---|---|---|"]
    for r in rules():
        if differentiable_only and not r.differentiable:
            continue
        grad_fns = "<br>".join(f"`{n}`" for n in r.grad_fn.split(" / "))
        rows.append(f"| **{r.name}**<br>{grad_fns}<br>keeps {r.keeps} | `{r.forward}` | {cell(r.vjp, r.inputs)} | "
                    f"{cell(r.jvp, r.inputs)} | `{r.batch}` |")
    return "\n".join(rows)


__all__ = ["Rule", "rules", "rule", "table", "helpers", "markdown", "Op"]
