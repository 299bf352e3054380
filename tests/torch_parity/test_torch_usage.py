"""tools/torch_usage.py, the usage-ranked list of torch names (usage/, issue 48).

(a) The counter run on a fixture of two made-up sources (tests/support/fixtures/torch_usage/):
    exact counts, so that what it counts and what it leaves out is pinned down.
(b) The coverage of the committed table (usage/torch_names.csv) against today's
    autograd_lab, printed: every listed name is implemented or refused in words
    (REQUIRE_EVERY_LISTED_NAME below).
"""
import sys
from collections import Counter

from book_site import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import torch_usage  # noqa: E402

FIXTURE = ROOT / "tests" / "support" / "fixtures" / "torch_usage"

# Issue 48's names are implemented or refused in words: the coverage test fails on any
# listed name that is neither.
REQUIRE_EVERY_LISTED_NAME = True

# name: (sources, uses) in the fixture; alpha = lesson.py + notebook.ipynb, beta = train.py
EXPECTED = {
    "torch.Tensor.std": (2, 3),            # x.std(dim=0, unbiased=False), t.std(), out.std(0)
    "torch.Tensor.sum": (2, 3),            # x.sum(axis=...), Cube.apply(t).sum(), out.sum()
    "torch.nn.Linear": (2, 3),
    "torch.Tensor.backward": (2, 2),
    "torch.nn.Module.parameters": (2, 2),
    "torch.optim.Optimizer.step": (2, 2),
    "torch.sum": (2, 2),
    "torch.Tensor.__getitem__": (1, 2),
    "torch.Tensor.__pow__": (1, 2),
    "torch.autograd.Function.apply": (1, 2),   # vmap(Cube.apply) and Cube.apply(t)
    "torch.Tensor.__add__": (1, 1),            # t + 1, under an `if` whose !ls became pass
    "torch.Tensor.__mul__": (1, 1),
    "torch.Tensor.__rmul__": (1, 1),
    "torch.Tensor.mean": (1, 1),
    "torch.Tensor.shape": (1, 1),
    "torch.Tensor.split": (1, 1),              # x.split(2, dim=0), not "a,b".split(",")
    "torch.autograd.Function": (1, 1),
    "torch.autograd.function.FunctionCtx.save_for_backward": (1, 1),
    "torch.autograd.function.FunctionCtx.saved_tensors": (1, 1),
    "torch.backends.cudnn.benchmark": (1, 1),
    "torch.cuda.is_available": (1, 1),
    "torch.device": (1, 1),
    "torch.func.grad": (1, 1),
    "torch.func.vmap": (1, 1),                 # torch.func's spelling, not torch.vmap
    "torch.long": (1, 1),
    "torch.nn.Module": (1, 1),
    "torch.nn.Module.eval": (1, 1),
    "torch.nn.Sequential": (1, 1),
    "torch.nn.functional.cross_entropy": (1, 1),
    "torch.nn.functional.relu": (1, 1),
    "torch.ones": (1, 1),
    "torch.optim.Adam": (1, 1),
    "torch.optim.Optimizer.zero_grad": (1, 1),  # opt = torch.optim.SGD(...): an optimizer
    "torch.optim.SGD": (1, 1),
    "torch.rand": (1, 1),
    "torch.randn": (1, 1),
    "torch.utils.data.DataLoader": (1, 1),
    "torch.utils.data.TensorDataset": (1, 1),
    "torch.zeros": (1, 1),                     # the %%bash cell's torch.zeros is not Python
}


def count_fixture():
    api = torch_usage.load_api()
    sources = torch_usage.count_corpus(FIXTURE, api)
    return sources, {r["name"]: r for r in torch_usage.table(sources, api)}


def test_every_name_of_the_fixture_is_counted_by_sources_and_uses():
    _, rows = count_fixture()
    assert {name: (r["sources"], r["uses"]) for name, r in rows.items()} == EXPECTED


def test_keyword_arguments_are_counted_with_their_name_numpy_spellings_included():
    _, rows = count_fixture()
    assert rows["torch.Tensor.std"]["kwargs"] == [("dim", 1, 1), ("unbiased", 1, 1)]
    assert rows["torch.Tensor.sum"]["kwargs"] == [("axis", 1, 1), ("keepdims", 1, 1)]
    assert rows["torch.sum"]["kwargs"] == [("dim", 2, 2)]
    assert rows["torch.Tensor.mean"]["kwargs"] == [("dim", 1, 1), ("keepdim", 1, 1)]
    assert rows["torch.utils.data.DataLoader"]["kwargs"] == [("batch_size", 1, 1),
                                                             ("shuffle", 1, 1)]
    assert rows["torch.nn.Linear"]["kwargs"] == [("bias", 1, 1)]


def test_a_notebook_loses_its_magics_and_shell_lines_and_skips_cells_that_do_not_parse():
    assert torch_usage.clean_cell("%matplotlib inline\nimport torch") == "pass\nimport torch"
    assert torch_usage.clean_cell("if True:\n    !ls\n    u = 1") == "if True:\n    pass\n    u = 1"
    assert torch_usage.clean_cell("%%bash\nls") is None
    assert torch_usage.clean_cell("%%time\nx = 1") == "x = 1"
    sources, rows = count_fixture()
    alpha = sources["alpha"]
    # lesson.py and five code cells parse; the Python 2 cell does not (its torch.exp is
    # not counted); the %%bash cell is not Python
    assert (alpha["files"], alpha["units"], alpha["bad_units"]) == (2, 6, 1)
    assert "torch.exp" not in rows


def test_a_custom_function_is_described_by_its_methods_class_attributes_and_ctx():
    sources, _ = count_fixture()
    (cube,) = sources["alpha"]["function_classes"]
    assert cube["name"] == "Cube"
    assert cube["methods"] == {"forward": ["staticmethod"], "setup_context": ["staticmethod"],
                               "backward": ["staticmethod"]}
    assert cube["class_attrs"] == ["generate_vmap_rule"]
    assert cube["ctx"] == {"save_for_backward", "saved_tensors", "scale (own attribute)"}
    assert sources["beta"]["function_classes"] == []


def test_the_list_is_the_names_three_sources_use_or_the_most_used_whichever_is_more():
    rows = [{"name": f"torch.n{i}", "kind": "torch", "sources": s, "uses": 1}
            for i, s in enumerate([5, 3, 3, 2, 1])]
    assert [r["name"] for r in torch_usage.listed(rows, top=2)] == ["torch.n0", "torch.n1",
                                                                    "torch.n2"]
    assert len(torch_usage.listed(rows, top=4)) == 4
    rows.append({"name": "torch.typo", "kind": "not in torch 2.13.0", "sources": 9, "uses": 9})
    assert "torch.typo" not in [r["name"] for r in torch_usage.listed(rows, top=2)]


def test_extraction_keeps_the_code_files_the_manifest_selects():
    entry = {"include": ["lessons/*"], "exclude": ["lessons/old/*"]}
    generic = ["*/.ipynb_checkpoints/*"]
    picked = [p for p in ["lessons/a.py", "lessons/b.ipynb", "lessons/a.md", "lessons/old/c.py",
                          "other/d.py", "lessons/.ipynb_checkpoints/b.ipynb"]
              if torch_usage.selected(p, entry, generic)]
    assert picked == ["lessons/a.py", "lessons/b.ipynb"]


def test_coverage_of_the_usage_table_against_autograd_lab():
    rows = torch_usage.read_csv(ROOT / "usage" / "torch_names.csv")
    in_torch = [r for r in rows if not r["kind"].startswith("not in torch")]
    by_three = sum(1 for r in in_torch if r["sources"] >= 3)
    cov = torch_usage.coverage(rows)
    assert len(cov) == max(by_three, 300)
    n = torch_usage.coverage_counts(cov)
    assert sum(n.values()) == len(cov)
    missing = [r for r, status, _ in cov if status == "missing"]
    print(f"\nusage table: {len(cov)} listed names, {n['implemented']} implemented in "
          f"autograd_lab, {n['refused']} refused in words, {n['missing']} missing")
    for kind, k in Counter(r["kind"] for r in missing).most_common():
        print(f"  missing {kind}: {k}")
    for r, status, words in cov:          # (the words name it, or the namespace it is in)
        if status == "refused":
            named, said = words.split(" is not implemented in autograd_lab (", 1)
            assert r["name"] == named or r["name"].startswith(named + "."), (r["name"], words)
    if REQUIRE_EVERY_LISTED_NAME:
        assert not missing, [r["name"] for r in missing]


def test_a_listed_name_neither_implemented_nor_refused_fails_the_coverage(monkeypatch):
    """The check above can fail: a listed name autograd_lab drops without a word (here
    al.nn.Linear, gone from al.nn, with a typo's AttributeError) counts as missing."""
    import autograd_lab as al
    rows = torch_usage.read_csv(ROOT / "usage" / "torch_names.csv")
    monkeypatch.delattr(al.nn, "Linear")
    monkeypatch.setattr(al.nn, "__getattr__", lambda name: (_ for _ in ()).throw(AttributeError(name)))
    statuses = {r["name"]: status for r, status, _ in torch_usage.coverage(rows)}
    assert statuses["torch.nn.Linear"] == "missing"
    assert statuses["torch.nn.Conv2d"] == "implemented"
    assert statuses["torch.jit.script"] == "refused"


def test_a_name_autograd_lab_says_is_not_here_counts_as_missing_and_a_setting_it_accepts_as_there():
    import autograd_lab as al
    from autograd_lab.not_here import NotInAutogradLab, torch_names
    al_, probes = torch_usage._al_probe()
    lacking = next(n for n in sorted(torch_names()[0]["torch.nn"]) if not hasattr(al.nn, n))
    try:
        getattr(al.nn, lacking)
    except NotInAutogradLab as e:
        assert str(e).startswith(f"torch.nn.{lacking} is not implemented in autograd_lab")
    assert torch_usage.al_lookup(f"torch.nn.{lacking}", al_, probes) is None
    assert torch_usage.al_lookup("torch.backends.cudnn.deterministic", al_, probes) is False
    assert torch_usage.al_lookup("torch.cuda.empty_cache", al_, probes) is not None


def test_the_torch_names_autograd_lab_knows_are_those_of_the_committed_api_table():
    import json
    api = json.loads((ROOT / "usage" / "torch_api.json").read_text())
    written = json.loads(torch_usage.NAMES_JSON.read_text())
    assert written == json.loads(json.dumps(torch_usage.not_here_names(api))), \
        "autograd_lab/torch_names.json is stale: run `python3 tools/torch_usage.py names`"


def test_the_keywords_said_to_be_refused_by_torch_too_are():
    """(MISSING.md notes them beside autograd_lab's refusals: torch 2.13 gives a TypeError.)"""
    import pytest
    torch = pytest.importorskip("torch", reason="torch is not installed")
    calls = {"torch.tensor": lambda kw: torch.tensor([1.0], **kw),
             "torch.optim.lr_scheduler.ReduceLROnPlateau": lambda kw: torch.optim.lr_scheduler.ReduceLROnPlateau(
                 torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1), **kw)}
    assert set(calls) == set(torch_usage.TORCH_REFUSES)
    for name, keywords in torch_usage.TORCH_REFUSES.items():
        for k in keywords:
            with pytest.raises(TypeError, match=f"unexpected keyword argument '{k}'"):
                calls[name]({k: None})
