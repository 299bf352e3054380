"""Which entry of the book's page of errors explains this message?

``al.explain()`` after a cell raised, ``al.explain(exc)`` or ``al.explain("message")``
prints the entry that explains it: why it happens, a fix that runs, and where the book
teaches it.  The entries come from ``errors_index.json`` beside this file, generated from
the page (book/errors.ipynb) by ``python3 tools/sphinxext/errors_index.py``; a test checks
that it equals what the page generates now.

The matcher, the same in the book's page (tools/sphinxext/error_finder.js takes these steps
with the RULES below, which travel in the index):

1. **The message.**  Of a traceback, the last exception or warning line (rule "header";
   a warning printed after its file name and line counts too) and the lines after it, up
   to an indented line or a line that starts a traceback's part (rule "stop"): file
   paths, the user's code and the frames above are left out.  Text with no such line is
   taken whole (less its common indent), without its frames and indented code lines.
2. **Words.**  Paths, addresses and ordinals are dropped, a node name (``SqrtBackward0``)
   becomes one placeholder, digits go, then the words are the runs of letters
   (``requires_grad`` is one word), lower-cased, without a short list of little words and
   the frameworks' module names (``torch``, ``jax``...).  Numbers, shapes, dtypes' sizes,
   names of nodes and of files never reach the comparison.
3. **Score.**  Each entry has phrasings: its heading, its message as the page shows it,
   and how other frameworks say the same thing (book/errors_elsewhere.toml).  A phrasing
   is a set of words and word pairs, each weighted by how rare it is among the entries
   (``log(1 + entries / entries that use it)``, in hundredths, rounded: whole numbers, so
   that both languages add them up exactly alike).  An entry's score is the largest share
   of a phrasing's weight found in the message: 1 when the message holds a whole
   phrasing, whatever else it says.  Entries scoring at least ``least`` and at least
   ``near`` times the best are listed, best first, at most ``most``; of equal scores, the
   larger weight found first, then page order.
"""
import json
import math
import re
import sys
import textwrap
import traceback
from pathlib import Path

INDEX = Path(__file__).resolve().with_name("errors_index.json")

# Regular expressions in the syntax Python and JavaScript share (read with re.ASCII).
RULES = {
    # spaces other than " " (tabs, no-break spaces...), listed: the languages' \s differ
    "spaces": r"[\t\v\f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]",
    # an exception's or warning's line: "RuntimeError: ...", "jax.errors.XError: ...",
    # "/path/x.py:12: UserWarning: ...", TensorFlow's logged "WARNING:tensorflow:..."
    "header": r"^(?:\S.{0,400}?:\d+: )?(?:[A-Za-z_]\w{0,100}\.){0,9}[A-Za-z_]\w{0,100}"
              r"(?:Error|Exception|Warning)(?::(?= )|:?$)|^(?:WARNING|ERROR):[\w.]{1,100}:",
    # the end of a message: an indented line, a frame, a traceback's heading or ruler
    "stop": r"^(?:\s|-{5}|Traceback \(most recent call last\)|During handling of the above"
            r"|The above exception was|File \S+:\d+|Cell In\[)",
    # in text without a header, the lines that are not the message
    "frame": r"^(?:\s|Traceback \(most recent call last\)|File \S+:\d+|Cell In\[|-{5,}$)",
    # dropped: a word with a slash (a path, an address, "shape/dtype"), ordinals (0th, 1st);
    # each starts where a word does, so that a long paste without spaces stays quick
    "drop": [r"(?<!\S)\S*[\\/]\S*", r"\b\d+(?:st|nd|rd|th)\b"],
    "node": r"(?<![A-Za-z])[A-Za-z]+Backward\d*",                   # SqrtBackward0, MulBackward
    "node_as": "backwardnode",                                    # ... become this word
    "word": r"[A-Za-z]+(?:_[A-Za-z]+)*",
    "little": ["a", "an", "and", "are", "as", "at", "be", "been", "by", "for", "if", "in",
               "is", "it", "its", "of", "on", "or", "please", "that", "the", "this", "to",
               "was", "were", "with", "you", "your",
               "al", "autograd_lab", "jax", "jnp", "np", "tensorflow", "tf", "torch"],
    "least": 0.5,
    "near": 0.6,
    "most": 5,
}
WIDTH = 88                     # explain()'s paragraphs


def _re(pattern):
    return re.compile(pattern, re.ASCII)


def message_of(text, rules=RULES):
    """The part of ``text`` (a message, a traceback, a log) that says what went wrong."""
    lines = re.sub(rules["spaces"], " ", str(text)).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    header, stop = _re(rules["header"]), _re(rules["stop"])
    last = max((i for i, line in enumerate(lines) if header.search(line)), default=None)
    if last is not None:
        kept = [lines[last]]
        for line in lines[last + 1:]:
            if stop.search(line):
                break
            kept.append(line)
        return "\n".join(kept)
    indent = min((len(line) - len(line.lstrip(" ")) for line in lines if line.strip(" ")), default=0)
    frame = _re(rules["frame"])
    return "\n".join(line[indent:] for line in lines if not frame.search(line[indent:]))


def words(text, rules=RULES):
    """The words that take part in the comparison, in order."""
    for pattern in rules["drop"]:
        text = _re(pattern).sub(" ", text)
    text = _re(rules["node"]).sub(f" {rules['node_as']} ", text)
    text = _re(r"\d").sub("", text)
    little = set(rules["little"])
    found = [w.lower() for w in _re(rules["word"]).findall(text)]
    return [w for w in found if w not in little and len(w) > 1]


def grams(ws):
    """Words and pairs of neighbouring words."""
    return set(ws) | {f"{a} {b}" for a, b in zip(ws, ws[1:])}


class Finder:
    """The entries of an index and their phrasings, ready to score messages."""

    def __init__(self, index):
        self.index, self.rules = index, index["rules"]
        self.entries = index["entries"]
        self.phrasings = [[grams(words(p, self.rules)) for p in e["phrasings"]]
                          for e in self.entries]
        uses = {}
        for sets in self.phrasings:
            for g in set().union(*sets):
                uses[g] = uses.get(g, 0) + 1
        n = len(self.entries)
        self.weight = {g: math.floor(100 * math.log(1 + n / k) + 0.5) for g, k in uses.items()}

    def scores(self, text):
        """[(score, weight found) of each entry], in page order, for a message or traceback:
        the best phrasing's share of its weight found in the message, and that weight."""
        found = grams(words(message_of(text, self.rules), self.rules))
        out = []
        for sets in self.phrasings:
            best = (0.0, 0)
            for p in sets:
                total = sum(self.weight[g] for g in p)
                got = sum(self.weight[g] for g in p if g in found)
                if total:
                    best = max(best, (got / total, got))
            out.append(best)
        return out

    def match(self, text):
        """The entries that explain ``text``, best first: [(score, entry)].  Of two entries
        whose phrasings the message holds whole, the longer phrasing wins ("a view of a
        leaf Variable..." holds "a leaf Variable..." too); then page order."""
        scores = self.scores(text)
        top = max((s for s, _ in scores), default=0.0)
        least = max(self.rules["least"], self.rules["near"] * top)
        ranked = sorted(range(len(scores)), key=lambda i: (-scores[i][0], -scores[i][1], i))
        return [(scores[i][0], self.entries[i]) for i in ranked
                if scores[i][0] >= least][:self.rules["most"]]


_finder = None


def finder():
    global _finder
    if _finder is None:
        _finder = Finder(json.loads(INDEX.read_text(encoding="utf-8")))
    return _finder


def match(text):
    """The page's entries that explain a message or traceback, best first: [(score, entry)]."""
    return finder().match(text)


def _last_exception():
    exc = getattr(sys, "last_exc", None) or getattr(sys, "last_value", None)
    if exc is None:
        raise ValueError("no exception has been raised here yet: after a cell that raised, "
                         "call al.explain(); or pass the exception or its message, "
                         "al.explain(exc) or al.explain('...')")
    return exc


def _text_of(what):
    if what is None:
        what = _last_exception()
    if isinstance(what, BaseException):
        return "".join(traceback.format_exception_only(type(what), what))
    if isinstance(what, Warning):
        return f"{type(what).__name__}: {what}"
    if hasattr(what, "category") and hasattr(what, "message"):          # warnings.catch_warnings
        return f"{what.category.__name__}: {what.message}"
    return str(what)


def explanation(what=None):
    """The text ``explain`` prints (see there)."""
    text = _text_of(what)
    said = message_of(text).strip().splitlines()
    shown = said[0] if said else ""
    shown = shown if len(shown) <= 160 else shown[:157] + "..."
    found = match(text)
    page = finder().index["page"]
    if not found:
        return "\n\n".join([shown, textwrap.fill(
            f"No entry of the book's page of errors ({page}.ipynb) matches this text. The page "
            "has the errors and warnings of autograd, in PyTorch's words (and JAX's and "
            "TensorFlow's where they have the same error); the book's search finds other "
            "words.", WIDTH)])
    (score, best), others = found[0], found[1:]
    lines = [shown, "",
             f"The book's page of errors explains it: {best['heading']}",
             f"  in a notebook: {page}.ipynb#{best['label']}",
             f"  in the built book: {page}.html#{best['label']}", "",
             textwrap.fill("Why: " + best["cause"], WIDTH), "", "A fix that runs:"]
    lines += ["    " + line for line in best["fix"].splitlines()]
    lines += ["", f"Taught in: {best['teaches']['title']}",
              f"  {page.rpartition('/')[0]}/{best['teaches']['href']}".replace("  /", "  ")]
    if others:
        lines += ["", "Other entries that may fit:"]
        lines += [f"  {e['heading']} ({page}.ipynb#{e['label']})" for _, e in others]
    return "\n".join(lines)


def explain(what=None, file=None):
    """Print the entry of the book's page of errors that explains an error.

    ``al.explain()`` after a cell (or a line at the prompt) raised explains the last
    exception; ``al.explain(exc)`` an exception or warning; ``al.explain("...")`` a message
    or a whole traceback, pasted from PyTorch, JAX, TensorFlow or autograd_lab.  Prints why
    it happens, a fix that runs, and where the book teaches it; says so when no entry
    matches."""
    print(explanation(what), file=file or sys.stdout)
