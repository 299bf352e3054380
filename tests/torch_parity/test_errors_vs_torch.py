"""The page of errors and warnings against PyTorch: each entry's code, run unchanged with
`al` bound to torch, raises (or warns) the same type and message in PyTorch, and each fix
runs in both and prints what the page shows. The entries come from the notebook itself
(tests/support/errors_page.py): no message is written here."""
import contextlib
import io
import re
import warnings

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare the errors page with PyTorch")

from errors_page import checklist, entries, source  # noqa: E402

ENTRIES = entries()


class _TorchAsAl:
    """`al.x` is `torch.x`: the page's code runs as written on PyTorch."""

    def __getattr__(self, name):
        return getattr(torch, name)


def normalized(text):
    """A message or printout with the differences of spelling only: torch.Size([2, 1]) is
    (2, 1), torch.float32 is al.float32, no addresses; torch's pointers to its own sources
    ("(Triggered internally at ...)", "See github.com/pytorch/pytorch/pull/N for more
    information.") are left out."""
    def size(m):
        dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
        return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"
    text = re.sub(r"\s*\(Triggered internally at [^)]*\)\.?", "", text)
    text = re.sub(r"\s*See github\.com/pytorch/pytorch/pull/\d+ for more information\.", "", text)
    text = re.sub(r"torch\.Size\(\[([^\]]*)\]\)", size, text)
    text = re.sub(r" object at 0x[0-9a-f]+", "", text)
    return " ".join(text.replace("torch.", "al.").split())


def same_or_extended(ours, theirs):
    """autograd_lab's message is torch's, or torch's followed by a sentence or a parenthesis
    of its own (the page says so where it is; after a message of torch's that ends without
    a full stop, the sentence starts with one)."""
    return ours == theirs or (ours.startswith(theirs) and re.match(r"\.? [(A-Z]", ours[len(theirs):]))


def run_in_torch(code, namespace):
    """(exception type name, message) or None, the warnings, and what the code printed."""
    out = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
        warnings.simplefilter("always")
        try:
            exec(compile(code, "<cell>", "exec"), namespace)
            raised = None
        except Exception as e:      # noqa: BLE001 -- the point is to compare what was raised
            raised = (type(e).__name__, str(e))
    said = [(w.category.__name__, str(w.message)) for w in caught
            if not issubclass(w.category, DeprecationWarning)]
    return raised, said, out.getvalue()


def printed(cell):
    return "".join("".join(o.get("text", "")) for o in cell["outputs"]
                   if o.get("output_type") == "stream" and o.get("name") == "stdout")


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.label for e in ENTRIES])
def test_each_entry_raises_in_pytorch_what_the_page_shows(entry):
    kind, message = entry.said
    namespace = {"al": _TorchAsAl()}
    raised, said, _ = run_in_torch(source(entry.problem), namespace)
    if entry.raises:
        assert raised is not None, f"torch raises nothing for {entry.label}"
        assert raised[0] == kind
        theirs = normalized(raised[1])
    else:
        assert raised is None, raised
        theirs = next((normalized(m) for k, m in said if k == kind
                       and normalized(m)[:30] == normalized(message)[:30]), None)
        assert theirs is not None, f"torch does not warn {message!r}; it said {said}"
    ours = normalized(message)
    assert same_or_extended(ours, theirs), f"\nours:  {ours}\ntorch: {theirs}"
    # an entry whose message adds to torch's says so in its prose
    assert (ours != theirs) == ("autograd_lab adds" in entry.prose), entry.label


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.label for e in ENTRIES])
def test_each_fix_runs_in_pytorch_and_prints_what_the_page_shows(entry):
    namespace = {"al": _TorchAsAl()}
    run_in_torch(source(entry.problem), namespace)
    for fix in entry.fixes:
        raised, _, out = run_in_torch(source(fix), namespace)
        assert raised is None, f"{entry.label}: the fix raises in torch: {raised}"
        assert normalized(out) == normalized(printed(fix)), f"{entry.label}:\n{out}"


@pytest.mark.parametrize("k", range(len(checklist())))
def test_each_check_of_the_none_grad_checklist_says_the_same_in_pytorch(k):
    cell = checklist()[k]
    raised, _, out = run_in_torch(source(cell), {"al": _TorchAsAl()})
    assert raised is None and normalized(out) == normalized(printed(cell)), out
