"""The rules table the book prints is read from the source of its rows (rules.py, then the
shell's more_rules.py and nn/loss_rules.py)."""
import inspect
import re

from autograd_lab import rules, recording, rulebook, more_rules
from autograd_lab.nn import loss_rules


def test_every_op_in_the_table_has_a_row_with_readable_rules():
    rows = {r.name: r for r in rulebook.rules()}
    assert set(rules.table()) < set(rows) == set(rulebook.table())
    for r in rows.values():
        texts = (r.forward,) + r.vjp + r.jvp
        assert all("<lambda>" not in t for t in texts), r
        if r.differentiable:              # (NotImplemented: torch's node with no derivative)
            assert r.vjp and r.jvp and ("Backward" in r.grad_fn or r.grad_fn.endswith("CopySlices") or
                                        r.grad_fn.endswith("NotImplemented")), r


def test_where_row_reads_like_the_math():
    r = rulebook.rule("where")
    assert r.inputs == ("mask", "a", "b")
    assert r.vjp == ("—", "where(mask, g, 0.0)", "where(mask, 0.0, g)")
    assert r.grad_fn == "WhereBackward0" and r.forward == "np.where"


def test_names_that_depend_on_arguments_are_all_listed():
    assert rulebook.rule("sum").grad_fn == "SumBackward0 / SumBackward1"
    assert set(rulebook.rule("matmul").grad_fn.split(" / ")) >= {"MmBackward0", "DotBackward0", "MvBackward0"}


def test_markdown_table_has_one_row_per_differentiable_op():
    md = rulebook.markdown()
    differentiable = [r for r in rulebook.rules() if r.differentiable]
    assert md.count("\n| **") == len(differentiable)
    assert ("| **mul**<br>`MulBackward0`<br>keeps a and b (each for the other's rule) | "
            "`np.multiply` | a: `g * b`<br>b: `g * a` |") in md
    assert "| **sum**<br>`SumBackward0`<br>`SumBackward1`<br>keeps nothing |" in md
    assert "| **exp**<br>`ExpBackward0`<br>keeps the output |" in md     # what chapter 05b says


def test_the_table_lists_every_row_of_its_modules_once_where_it_is_defined():
    rows = {r.name: r for r in rulebook.rules()}
    for module, where in [(rules, "rules"), (more_rules, "more_rules"), (loss_rules, "loss_rules")]:
        own = [name for name, op in vars(module).items() if isinstance(op, recording.Op)
               and all(op is not v for m in rulebook.MODULES[:rulebook.MODULES.index(module)]
                       for v in vars(m).values())]
        assert own and all(rows[name].module == where for name in own), where
    assert rows["gather"].module == "more_rules" and rows["mse_loss"].module == "loss_rules"
    assert rows["where"].module == "rules"      # (more_rules imports it: still rules.py's row)


def test_helpers_are_read_from_the_module_of_their_row():
    found = rulebook.helpers()
    assert "def _spread(" in found["_spread"] and "def _unreduce(" in found["_unreduce"]
    called = {name for r in rulebook.rules() for text in r.vjp + r.jvp
              for name in re.findall(r"\b(_[a-z_]+)\(", text)}
    assert set(found) == called
    assert inspect.getsource(loss_rules._spread) == found["_spread"]


def test_g_means_one_thing_in_every_rule():
    """The arriving gradient is g; a row that differentiates a backward takes a g of its own
    as an input, so its rules call the gradient arriving at its output gg (chapter 06 says
    so above the table): no rule names two things g, and none calls it anything else."""
    for module, rows in recording.ROWS.items():
        for name, op in rows.items():
            try:
                forward = list(inspect.signature(op.forward).parameters)
            except (TypeError, ValueError):       # a NumPy function: its inputs are x, a, b ...
                forward = []
            for rule in (op.vjp or ()) + ((op.vjp_all,) if op.vjp_all else ()):
                if rule is not None:
                    first = next(iter(inspect.signature(rule).parameters))
                    assert first == ("gg" if "g" in forward else "g"), (module, name, first)
