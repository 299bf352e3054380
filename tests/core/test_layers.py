"""The package's architecture, checked: modules import downward only (no circle), none
reaches into another's private names, and the core a reader opens stays small."""
import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "autograd_lab"

# the core: what chapter 06 sends a reader to, in autograd_lab/core/ (see README, "What
# lives where"), beside the optional machinery and the layers below them
CORE = ["tensor", "recording", "rules", "inplace", "engine"]


def module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def modules():
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def resolve(importer, level, module):
    """The absolute name of a relative import ``from <level dots><module> import ...``."""
    package = importer.split(".")
    if not modules()[importer].name == "__init__.py":
        package = package[:-1]
    base = package[:len(package) - level + 1]
    return ".".join(base + ([module] if module else []))


def imports(name, path, known):
    """(imported module, names taken from it) for every import of a package module, at
    any depth of the file (an import inside a function is an import too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0 and not (node.module or "").startswith("autograd_lab"):
                continue
            target = resolve(name, node.level, node.module) if node.level else node.module
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.append((sub, None) if sub in known else (target, alias.name))
        elif isinstance(node, ast.Import):
            found += [(a.name, None) for a in node.names if a.name.startswith("autograd_lab")]
    return found


@functools.cache
def graph():
    """{module: modules it imports}, leaving out each module's own parent packages (Python
    imports a package before any module in it: that is no choice of the module's)."""
    known = modules()
    edges = {}
    for name, path in known.items():
        parents = {".".join(name.split(".")[:k]) for k in range(1, name.count(".") + 1)}
        edges[name] = {m for m, _ in imports(name, path, known) if m in known and m not in parents and m != name}
    return edges


def find_circle(edges):
    """One import circle as a list of modules, or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for n in sorted(edges[m]):
            if state.get(n) == "open":
                return stack[stack.index(n):] + [n]
            if n not in state:
                circle = visit(n)
                if circle:
                    return circle
        state[m] = "done"
        stack.pop()
        return None

    for m in sorted(edges):
        if m not in state:
            circle = visit(m)
            if circle:
                return circle
    return None


def test_no_module_imports_in_a_circle():
    circle = find_circle(graph())
    assert circle is None, "import circle: " + " -> ".join(circle)


def test_find_circle_finds_one():
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"b"}, "b": set()}) is None


def test_no_module_imports_another_modules_private_names():
    known = modules()
    bad = []
    for name, path in known.items():
        for module, taken in imports(name, path, known):
            if taken is not None and taken.startswith("_") and not taken.startswith("__"):
                bad.append(f"{name} imports {taken} from {module}")
            elif taken is None and module.rsplit(".", 1)[-1].startswith("_") and \
                    module.rsplit(".", 1)[0] != name.rsplit(".", 1)[0]:
                bad.append(f"{name} imports the private module {module}")
    assert not bad, "\n".join(bad)


def test_no_module_reads_another_modules_private_names():
    """``rules._helper`` from outside rules: a private name read through the module."""
    known = modules()
    bad = []
    for name, path in known.items():
        tree = ast.parse(path.read_text())
        aliases = {}                    # local name -> package module it stands for
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                target = resolve(name, node.level, node.module)
                for a in node.names:
                    if f"{target}.{a.name}" in known:
                        aliases[a.asname or a.name] = f"{target}.{a.name}"
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                bad.append(f"{name}: {node.value.id}.{node.attr}")
    assert not bad, "\n".join(bad)


def in_folder(folder):
    return sorted(m for m in modules() if m.startswith(f"autograd_lab.{folder}."))


@pytest.mark.parametrize("core", in_folder("core"))
def test_the_core_imports_nothing_from_the_shell(core):
    """The core (autograd_lab/core/: the five files chapter 06 reads, the optional
    machinery recording calls and the layers below them) builds on itself, never on the
    PyTorch-shaped shell around it or the book's tools -- but for ``devices``, a tensor's
    ``.device``."""
    allowed = {"autograd_lab.core", *in_folder("core"), "autograd_lab.devices"}
    took = graph()[core]
    assert took <= allowed, f"{core} imports {sorted(took - allowed)}"


def test_the_core_holds_what_chapter_06_reads():
    assert {f"autograd_lab.core.{name}" for name in CORE} <= set(in_folder("core"))


def test_nothing_imports_the_teaching_tools_but_themselves():
    """The book's tools (autograd_lab/teaching/: pictures, the rulebook, the error
    finder, the explorers) sit on top: no module of the core or the shell imports them
    (the package's __init__ offers al.explain and al.viz)."""
    teaching = {"autograd_lab.teaching", *in_folder("teaching")}
    bad = {m: sorted(took & teaching) for m, took in graph().items()
           if m not in teaching and m != "autograd_lab" and took & teaching}
    assert not bad, bad


# what the shell reads of the core that is not a public name: a tensor's array, and the
# way to wrap one without a copy (chapter 06 says so).  (x._base and x._version are
# torch's own names for what they are in autograd_lab.)
SHELL_READS = {"_data", "_make"}
SHELL = ("creation", "devices", "more_rules", "einsum_rules", "functions", "tensor_methods", "func",
         "batching", "teaching", "optim", "autograd", "nn", "utils",
         "math_rules", "index_rules", "math_functions", "index_functions", "storage", "formats", "spellings",
         "random", "serialization")


def private_names(module):
    """The private names (not dunders) defined in the classes of a core module."""
    found = set()
    for node in ast.walk(ast.parse((PACKAGE / "core" / f"{module}.py").read_text())):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                targets = ([item.name] if isinstance(item, ast.FunctionDef) else
                           [t.id for t in getattr(item, "targets", ()) if isinstance(t, ast.Name)])
                if "__slots__" in targets:
                    targets += [e.value for e in item.value.elts]
                found.update(n for n in targets if n.startswith("_") and not n.startswith("__"))
    return found


def test_the_shell_reads_no_private_name_of_the_core_but_a_tensors_array():
    """Chapter 06's claim: the shell is built on the core's public names, and on two
    private ones of the tensor: ``_data`` (its NumPy array) and ``Tensor._make``."""
    core = {"tensor", "recording", "rules", "engine", "inplace", "versions", "saved", "forward_mode"}
    private = set().union(*map(private_names, core)) - {"_base", "_version"}
    read = {}
    for name, path in modules().items():
        if name.split(".")[1:2] and name.split(".")[1] in SHELL:
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Attribute) and node.attr in private:
                    read.setdefault(node.attr, set()).add(name)
    assert set(read) == SHELL_READS, {k: sorted(v) for k, v in read.items() if k not in SHELL_READS}


def code_lines(lines):
    """The lines of a function's source that are code: its docstring, comments and blank
    lines aside (a lambda's lines are all code), as chapter 06 counts them."""
    import textwrap
    try:
        first = ast.parse(textwrap.dedent("".join(lines))).body[0].body[0]
    except (SyntaxError, AttributeError):
        first = None
    doc = ()
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        doc = range(first.lineno - 1, first.end_lineno)
    return [line for k, line in enumerate(lines)
            if line.strip() and not line.strip().startswith("#") and k not in doc]


def test_code_lines_leave_out_docstrings_comments_and_blank_lines():
    source = ['def f(x):\n', '    """Two\n', '    lines."""\n', '\n', '    # a note\n',
              '    y = x + 1   # kept\n', '    return y\n']
    assert code_lines(source) == [source[0], source[5], source[6]]
    assert len(code_lines(['    vjp=(lambda g, y, a: g * a,\n'])) == 1


def backward_path(program):
    """{file name: [(function, lines of code)]} of every function of the package that
    ``program`` runs (a comprehension counts with the function it is in), as chapter 06
    traces it."""
    import inspect
    import sys

    ran = {}

    def record(frame, event, arg):
        code = frame.f_code
        inner = code.co_name.endswith("comp>") or code.co_name == "<genexpr>"
        if event == "call" and str(PACKAGE) in code.co_filename and not inner:
            ran[code] = len(code_lines(inspect.getsourcelines(code)[0]))

    sys.setprofile(record)
    try:
        program()
    finally:
        sys.setprofile(None)
    files = {}
    for code, n in ran.items():
        files.setdefault(Path(code.co_filename).name, []).append((code.co_name, n))
    return files


def test_backward_runs_code_in_three_files_of_the_core():
    """Chapter 06's promise: y.backward(v) reaches x.grad through the walk (engine.py),
    a rule (rules.py) and the tensor (tensor.py), nothing else: at most 150 lines of code."""
    import autograd_lab as al
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y, v = x * x, al.tensor([1.0, 1.0])
    files = backward_path(lambda: y.backward(v))
    assert set(files) == {"engine.py", "rules.py", "tensor.py"}, files
    assert x.grad.tolist() == [2.0, 4.0]
    names = {f for functions in files.values() for f, _ in functions}
    assert {"walk", "run_rules", "commit"} <= names
    code = sum(n for functions in files.values() for _, n in functions)
    assert code <= 150, f"{code} lines of code on the path (chapter 06 says about 150)"


FIRST_PROGRAM = """
import json, sys
from pathlib import Path
import autograd_lab as al

package = Path(al.__file__).parent


def lines_run(program):
    ran = {}

    def trace(frame, event, arg):
        path = Path(frame.f_code.co_filename)
        if event == "line" and path.is_relative_to(package):
            ran.setdefault(path.name, set()).add(frame.f_lineno)
        return trace

    sys.settrace(trace)
    try:
        return program(), ran
    finally:
        sys.settrace(None)


def first_program():
    return al.tensor([1.0, 2.0], requires_grad=True), al.tensor([1.0, 1.0])


x, v = first_program()
(x * x).backward(v)
x, v = first_program()
y, recording = lines_run(lambda: x * x)
_, walking = lines_run(lambda: y.backward(v))
print(json.dumps([x.grad.tolist(), *({k: len(v) for k, v in ran.items()} for ran in (recording, walking))]))
"""


def test_the_first_program_runs_at_most_150_lines_in_5_files():
    """Chapter 06's count: y = x * x; y.backward(v), traced line by line after a warm-up
    run in a fresh interpreter (as the chapter's kernel is), runs at most 150 distinct
    lines of the package (the recording's and the walk's, added up) in at most 5 files:
    the optional machinery runs none, behind its switches."""
    import json
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", FIRST_PROGRAM], capture_output=True, text=True,
                         check=True, cwd=PACKAGE.parent).stdout
    grad, recording, walking = json.loads(out)
    assert grad == [2.0, 4.0]
    total = sum(recording.values()) + sum(walking.values())
    assert total <= 150 and len(set(recording) | set(walking)) <= 5, (total, recording, walking)
    assert "recording.py" in recording and "engine.py" in walking


def test_the_walk_fits_on_one_screen_of_chapter_06():
    """engine.walk, which chapter 06 prints with inspect.getsource: at most 40 lines of
    code (docstring, comments and blank lines aside), each line narrow enough for the
    page's code block (79 characters: a longer one wraps at 1280 px)."""
    import inspect

    from autograd_lab import engine
    lines = inspect.getsource(engine.walk).splitlines()
    assert max(map(len, lines)) <= 79
    body = ast.parse(inspect.getsource(engine.walk)).body[0].body
    doc = body[0].end_lineno if isinstance(body[0], ast.Expr) else 1
    code = [line for line in lines[doc:] if line.strip() and not line.strip().startswith("#")]
    assert len(code) <= 40, len(code)
