"""The rules table the book prints is read from ops.py itself."""
from autograd_lab import ops, rulebook


def test_every_op_in_the_table_has_a_row_with_readable_rules():
    rows = {r.name: r for r in rulebook.rules()}
    assert set(rows) == set(ops.table())
    for r in rows.values():
        texts = (r.forward,) + r.vjp + r.jvp
        assert all("<lambda>" not in t for t in texts), r
        if r.differentiable:
            assert r.vjp and r.jvp and ("Backward" in r.grad_fn or r.grad_fn.endswith("CopySlices")), r


def test_where_row_reads_like_the_math():
    r = rulebook.rule("where")
    assert r.inputs == ("cond", "a", "b")
    assert r.vjp == ("—", "where(cond, g, 0.0)", "where(cond, 0.0, g)")
    assert r.grad_fn == "WhereBackward0" and r.forward == "np.where"


def test_names_that_depend_on_arguments_are_all_listed():
    assert rulebook.rule("sum").grad_fn == "SumBackward0 / SumBackward1"
    assert set(rulebook.rule("matmul").grad_fn.split(" / ")) >= {"MmBackward0", "DotBackward0", "MvBackward0"}


def test_markdown_table_has_one_row_per_differentiable_op():
    md = rulebook.markdown()
    differentiable = [r for r in rulebook.rules() if r.differentiable]
    assert md.count("\n| **") == len(differentiable)
    assert "| **mul**<br>`MulBackward0` | `np.multiply` | a: `g * b`<br>b: `g * a` |" in md
    assert "| **sum**<br>`SumBackward0`<br>`SumBackward1` |" in md
