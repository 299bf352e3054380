"""The page of errors and warnings (book/errors.ipynb), read as data: its entries and the
checklist "Why is my .grad None?", straight from the notebook's cells, so that a message
is written once (in the output of the cell that raises it) and every test reads it there.

An entry is a `### heading` (with its `(label)=` target above it), then the code cell that
raises or warns, then the code cells that fix it (each may have prose before it), up to
the next heading. The checklist is the section labelled `why-is-my-grad-none`: each code
cell there is one cause and its check."""
import json
import re
from dataclasses import dataclass, field

from book_site import ROOT

PAGE = ROOT / "book" / "errors.ipynb"
CHECKLIST = "why-is-my-grad-none"


@dataclass
class Entry:
    label: str                  # the (label)= target, also the anchor in the page
    heading: str
    group: str                  # the ## section: what the reader was doing
    problem: dict               # the cell that raises (tagged raises-exception) or warns
    fixes: list = field(default_factory=list)     # the code cells after it
    prose: str = ""             # the entry's text: why, the fix, the link

    @property
    def message_start(self):
        """The heading as a reader sees it: the message's first words (in code, so that
        quotes stay straight), an ellipsis where it is cut."""
        return self.heading.strip("`").removesuffix("…")

    @property
    def raises(self):
        return "raises-exception" in self.problem["metadata"].get("tags", [])

    @property
    def said(self):
        """(exception or warning type name, message) as the stored output shows it."""
        for out in self.problem["outputs"]:
            if out["output_type"] == "error":
                return out["ename"], out["evalue"]
        for out in self.problem["outputs"]:
            text = "".join(out.get("text", ""))
            if out.get("name") == "stderr" and re.match(r"\w+Warning: ", text):
                kind, _, message = text.partition(": ")
                # the page prints a warning wrapped at 72 columns: one line again
                return kind, " ".join(message.split())
        raise AssertionError(f"{self.label}: its first cell shows neither an error nor a warning")


def source(cell):
    return "".join(cell["source"])


def cells():
    return json.loads(PAGE.read_text(encoding="utf-8"))["cells"]


def _sections():
    """(label or None, heading level, heading text, cells up to the next heading)."""
    found = []
    for cell in cells():
        if cell["cell_type"] == "markdown":
            match = re.search(r"^(?:\((?P<label>[\w-]+)\)=\n)?(?P<hashes>#{2,3}) (?P<title>.+)$",
                              source(cell), re.M)
            if match:
                found.append((match["label"], len(match["hashes"]), match["title"].strip(), []))
                continue
        if found:
            found[-1][3].append(cell)
    return found


def entries():
    result, group = [], None
    for label, level, title, body in _sections():
        if level == 2:
            group = title
            if label == CHECKLIST:
                break
            continue
        code = [c for c in body if c["cell_type"] == "code"]
        assert label and code, f"entry {title!r} needs a (label)= target and a code cell"
        prose = "\n\n".join(source(c) for c in body if c["cell_type"] == "markdown")
        result.append(Entry(label, title, group, code[0], code[1:], prose))
    return result


def checklist():
    """The code cells of "Why is my .grad None?", one per cause."""
    for label, level, title, body in _sections():
        if label == CHECKLIST:
            return [c for c in body if c["cell_type"] == "code"]
    raise AssertionError(f"no section labelled {CHECKLIST} in {PAGE.name}")
