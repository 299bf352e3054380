#!/usr/bin/env python3
"""Which torch names learners' code uses, counted per source, and which autograd_lab lacks.

A *source* is one author's or one course's body of code (a folder of .py files and
.ipynb notebooks); a name's weight is the number of sources that use it, so one prolific
author cannot outvote the rest. The corpus is listed in usage/sources.json (repository,
commit, which paths) and is not committed; usage/README.md says how to fetch it again.

    # once per torch version, in an environment with torch (writes usage/torch_api.json):
    .venv-frameworks/bin/python tools/torch_usage.py api
    # copy the listed files out of the fetched repositories (git directories) into a folder:
    python3 tools/torch_usage.py extract --mirror /work/.mirror --out /tmp/torch_corpus
    # count (standard library only): usage/torch_names.csv, SOURCES.md, FILES.tsv, FUNCTIONS.md
    python3 tools/torch_usage.py count /tmp/torch_corpus
    # compare with autograd_lab (the project's venv): usage/MISSING.md
    .venv/bin/python tools/torch_usage.py coverage

How a name is found: each file (a notebook's code cells joined in order, IPython magics
and shell lines taken out, cells that do not parse skipped) is parsed with ``ast``.
Imports bind local names to torch paths (``import torch.nn as nn``, ``from torch.utils.data
import DataLoader``, ``import torch.nn.functional as F``, ``from torch.func import vmap``,
``F = torch.nn.functional``), and a dotted name is resolved against the members torch
2.13 really has (usage/torch_api.json, from ``dir()``). A method call or attribute on any
other object is counted by the type the receiver is known to have, inferred from what
was assigned to it: a tensor, a module (an nn class, or a class of the file that
subclasses one), an optimizer, a scheduler, a distribution, a custom Function's ``ctx``;
NumPy, pandas, strings, containers and other libraries' objects are left out. A receiver
of unknown type counts as a tensor when the name is one of torch.Tensor's and its keyword
arguments are ones the method takes, except the names Python's own containers (and PIL)
share (split, sort, index, values, resize), which need a tensor receiver or a tensor-only
argument; names only nn.Module (or only an optimizer) has count for that class when the
call fits its signature. Operators count as Tensor dunders when an operand is known to be
a tensor. usage/README.md lists the rules and their known limits.
"""
import argparse
import ast
import csv
import fnmatch
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
USAGE = ROOT / "usage"
API_JSON = USAGE / "torch_api.json"
MANIFEST = USAGE / "sources.json"

# ---------------------------------------------------------------------------------------
# 1. torch's real namespaces (run with torch installed)
# ---------------------------------------------------------------------------------------

# submodules imported before walking, so that dir() sees them
API_IMPORTS = [
    "torch.nn.functional", "torch.nn.init", "torch.nn.utils", "torch.nn.utils.rnn",
    "torch.nn.utils.parametrize", "torch.nn.utils.parametrizations", "torch.nn.utils.prune",
    "torch.nn.utils.stateless", "torch.nn.parallel", "torch.nn.attention",
    "torch.nn.attention.flex_attention", "torch.nn.attention.bias", "torch.optim",
    "torch.optim.lr_scheduler", "torch.optim.swa_utils", "torch.utils.data",
    "torch.utils.checkpoint", "torch.utils.hooks", "torch.utils.tensorboard",
    "torch.utils.benchmark", "torch.func", "torch.autograd", "torch.autograd.functional",
    "torch.autograd.forward_ad", "torch.autograd.graph", "torch.autograd.function",
    "torch.linalg", "torch.fft", "torch.special", "torch.distributions", "torch.masked",
    "torch.sparse", "torch.hub", "torch.jit", "torch.onnx", "torch.amp", "torch.cuda",
    "torch.cuda.amp", "torch.backends.cudnn", "torch.backends.cuda", "torch.backends.mps",
    "torch.mps", "torch.profiler", "torch.testing", "torch.export", "torch.compiler",
    "torch.multiprocessing", "torch.distributed", "torch.random", "torch.quantization",
    "torch.ao.quantization", "torch.overrides", "torch.types"]
API_SKIP_WALK = {"ops", "classes", "library", "_C", "contrib"}
API_MAX_DEPTH = 4
# internals and tooling: their own names are listed, their submodules' are not
API_NO_DESCEND = {"torch.fx", "torch.ao", "torch.onnx", "torch.package", "torch.utils.benchmark",
                  "torch.nn.quantized", "torch.nn.intrinsic", "torch.nn.qat",
                  "torch.nn.quantizable", "torch.quantization", "torch.masked", "torch.export",
                  "torch.signal", "torch.testing", "torch.utils.data.datapipes",
                  "torch.autograd.profiler", "torch.nn.utils.init"}
# namespaces of torch's documentation: a name found there is not folded into another
API_DOCUMENTED = {
    "torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils",
    "torch.nn.utils.rnn", "torch.nn.utils.parametrize", "torch.nn.utils.parametrizations",
    "torch.nn.utils.prune", "torch.nn.utils.stateless", "torch.nn.attention",
    "torch.nn.parallel", "torch.optim", "torch.optim.lr_scheduler", "torch.optim.swa_utils",
    "torch.utils.data", "torch.utils.checkpoint", "torch.func", "torch.autograd",
    "torch.autograd.functional", "torch.autograd.forward_ad", "torch.autograd.graph",
    "torch.linalg", "torch.fft", "torch.special", "torch.distributions", "torch.random",
    "torch.cuda", "torch.cuda.amp", "torch.amp", "torch.backends.cudnn", "torch.backends.mps",
    "torch.backends.cuda", "torch.jit", "torch.hub", "torch.onnx", "torch.profiler",
    "torch.testing", "torch.export", "torch.compiler", "torch.distributed", "torch.mps",
    "torch.multiprocessing", "torch.sparse", "torch.masked", "torch.nested", "torch.cpu",
    "torch.xpu", "torch.accelerator", "torch.utils.tensorboard"}
# names of optional dependencies absent where the table was made (tensorboard)
API_OPTIONAL = {"torch.utils.tensorboard": {"SummaryWriter": "class"}}
# classes whose members the counter resolves (instance attributes included)
API_CLASSES = ["torch.Tensor", "torch.nn.Module", "torch.optim.Optimizer",
               "torch.optim.lr_scheduler.LRScheduler", "torch.autograd.Function",
               "torch.autograd.function.FunctionCtx", "torch.distributions.Distribution",
               "torch.utils.data.DataLoader"]


def build_api():
    """torch's public names: {"modules": {path: {name: kind}}, "classes": {path:
    category}, "members": {class path: {name: "method" | "attribute"}}}."""
    import importlib
    import inspect
    import types

    import torch
    for name in API_IMPORTS:
        try:
            importlib.import_module(name)
        except Exception:  # an optional dependency (tensorboard, ...) is missing
            pass
    nn, data, optim = torch.nn, torch.utils.data, torch.optim
    sched = torch.optim.lr_scheduler
    categories = [(torch.Tensor, "tensor"), (nn.Module, "module"),
                  (optim.Optimizer, "optimizer"), (sched.LRScheduler, "scheduler"),
                  (sched.ReduceLROnPlateau, "scheduler"), (data.DataLoader, "loader"),
                  (data.Dataset, "dataset"), (data.Sampler, "sampler"),
                  (torch.distributions.Distribution, "dist"),
                  (torch.autograd.Function, "function")]

    def category(path, cls):
        for base, cat in categories:
            try:
                if issubclass(cls, base):
                    return cat
            except TypeError:
                return "other"
        if path.count(".") == 1 and path.endswith("Tensor"):   # torch.FloatTensor, ...
            return "tensor"
        return "other"

    modules, classes, mod_objs = {}, {}, {}

    def walk(path, mod, depth):
        if path in modules:
            return
        modules[path] = members = {}
        mod_objs[path] = mod
        names = {n for n in dir(mod) if not n.startswith("_")}
        inner = None
        if type(mod) is not types.ModuleType:      # torch.backends.cudnn's properties
            names |= {n for n in dir(type(mod)) if not n.startswith("_")}
            inner = getattr(mod, "m", None)        # ... and the module it wraps
            if isinstance(inner, types.ModuleType):
                names |= {n for n in dir(inner) if not n.startswith("_")}
                names.discard("m")
        for n in sorted(names):
            try:
                obj = getattr(mod, n) if hasattr(mod, n) else getattr(inner, n)
            except Exception:
                members[n] = "value"
                continue
            sub = f"{path}.{n}"
            if isinstance(obj, types.ModuleType):
                if obj.__name__ == sub:
                    members[n] = "module"
                    if depth < API_MAX_DEPTH and n not in API_SKIP_WALK \
                            and path not in API_NO_DESCEND:
                        walk(sub, obj, depth + 1)
                elif obj.__name__.startswith("torch.") and "._" not in obj.__name__:
                    members[n] = "alias:" + obj.__name__
                else:
                    members[n] = "external"
            elif not str(getattr(obj, "__module__", None) or "torch").startswith("torch"):
                members[n] = "external"            # typing.Optional, functools.wraps ...
            elif isinstance(obj, type):
                members[n] = "class"
                classes[sub] = category(sub, obj)
            elif isinstance(obj, torch.dtype):
                members[n] = "dtype"
            elif callable(obj):
                members[n] = "function"
            else:
                members[n] = "value"

    walk("torch", torch, 0)
    for path, names in API_OPTIONAL.items():
        if path not in modules:
            parent, _, last = path.rpartition(".")
            modules[parent][last] = "module"
            modules[path] = dict(names)
            classes.update({f"{path}.{n}": "other" for n, k in names.items() if k == "class"})
    for path in list(modules):   # aliases point at walked modules only
        for n, k in list(modules[path].items()):
            if k.startswith("alias:") and k[6:] not in modules:
                try:
                    target = importlib.import_module(k[6:])
                except ImportError:            # a dynamic namespace (torch.ops.aten)
                    modules[path][n] = "value"
                    continue
                walk(k[6:], target, API_MAX_DEPTH)

    # one name per object: torch.nn.modules.linear.Linear is torch.nn.Linear,
    # torch.utils.data.dataloader.DataLoader is torch.utils.data.DataLoader: the shallowest
    # path whose module encloses the object's own module (else the shallowest path)
    paths, objs = defaultdict(list), {}
    for path, mod in mod_objs.items():
        for n, k in modules[path].items():
            if k in ("class", "function"):
                try:
                    obj = getattr(mod, n)
                except Exception:
                    continue
                objs[id(obj)] = obj
                paths[id(obj)].append(f"{path}.{n}")
    canonical = {}
    for key, ps in paths.items():
        if len(ps) < 2:
            continue
        home = str(getattr(objs[key], "__module__", "") or "")
        inside = [q for q in ps if (home + ".").startswith(q.rpartition(".")[0] + ".")]
        best = min(inside or ps, key=lambda q: (q.count("."), q))
        # a documented namespace keeps its own spelling (torch.func.vmap is not torch.vmap)
        canonical.update({q: best for q in ps
                          if q != best and q.rpartition(".")[0] not in API_DOCUMENTED})

    def public(obj):
        return {n for n in dir(obj) if not n.startswith("_")}

    p = torch.zeros(1, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    seen_ctx = set()

    class Probe(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            seen_ctx.update(public(ctx))
            return x * 2

        @staticmethod
        def backward(ctx, g):
            seen_ctx.update(public(ctx))
            return g * 2

    Probe.apply(p).sum().backward()
    instances = {
        "torch.Tensor": p, "torch.nn.Module": nn.Module(), "torch.optim.Optimizer": opt,
        "torch.optim.lr_scheduler.LRScheduler": sched.StepLR(opt, 1),
        "torch.autograd.Function": Probe, "torch.distributions.Distribution":
            torch.distributions.Normal(0.0, 1.0),
        "torch.utils.data.DataLoader": data.DataLoader(data.TensorDataset(p))}
    # the keyword arguments each method takes (a Python signature, else the ATen
    # schemas of a Tensor method, with the NumPy spellings torch's parser accepts)
    members, params = {}, {}
    for path in API_CLASSES:
        cls = eval(path, {"torch": torch})
        for n in public(cls):
            names = None
            try:
                sig = inspect.signature(getattr(cls, n))
                ps = [q for q in sig.parameters.values() if q.name not in ("self", "cls")]
                if not any(q.kind == q.VAR_KEYWORD for q in ps):
                    names = {q.name for q in ps if q.kind != q.VAR_POSITIONAL}
                    if path != "torch.Tensor" and any(q.kind == q.VAR_POSITIONAL for q in ps):
                        names = None
            except (TypeError, ValueError):
                if path == "torch.Tensor":
                    try:
                        schemas = torch._C._jit_get_schemas_for_operator("aten::" + n)
                    except Exception:
                        schemas = []
                    if schemas:
                        names = {a.name for sc in schemas for a in sc.arguments} - {"self"}
            if names is not None:
                if "dim" in names:
                    names.add("axis")
                if "keepdim" in names:
                    names.add("keepdims")
                params[f"{path}.{n}"] = sorted(names)
        m = {}
        for n in sorted(public(cls) | public(instances.get(path, cls))):
            m[n] = "method" if callable(getattr(cls, n, None)) else "attribute"
        if path == "torch.autograd.function.FunctionCtx":
            for n in seen_ctx - set(m):
                m[n] = "attribute" if not callable(getattr(cls, n, None)) else "method"
            m = dict(sorted(m.items()))
        if path == "torch.Tensor":    # the operators, for the operator counts
            for n in dir(cls):
                if n.startswith("__") and n.endswith("__"):
                    m[n] = "method"
        members[path] = m
    classes = {k: v for k, v in classes.items() if v != "other"}   # "other" is the default
    return {"torch": torch.__version__, "modules": modules, "classes": classes,
            "members": members, "params": params, "canonical": canonical}


# the namespaces autograd_lab mirrors, whose torch names its "not here" errors know
# (autograd_lab/not_here.py reads autograd_lab/torch_names.json, which `names` writes)
NOT_HERE_MODULES = ("torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.optim",
                    "torch.utils", "torch.utils.data", "torch.func", "torch.autograd",
                    "torch.autograd.functional", "torch.autograd.forward_ad", "torch.autograd.graph",
                    "torch.cuda", "torch.backends", "torch.backends.cudnn", "torch.backends.mps",
                    "torch.backends.cuda", "torch.amp", "torch.accelerator", "torch.distributions",
                    "torch.optim.lr_scheduler", "torch.nn.utils", "torch.nn.utils.rnn", "torch.random")
NOT_HERE_CLASSES = ("torch.Tensor", "torch.nn.Module", "torch.optim.Optimizer",
                    "torch.utils.data.DataLoader")
NAMES_JSON = ROOT / "autograd_lab" / "torch_names.json"


def not_here_names(api):
    """torch's public names in the namespaces and classes autograd_lab mirrors (imported
    helpers such as typing's left out), for autograd_lab/torch_names.json."""
    modules = {ns: sorted(n for n, kind in api["modules"].get(ns, {}).items()
                          if kind != "external" and not n.startswith("_"))
               for ns in NOT_HERE_MODULES}
    members = {cls: sorted(n for n in api["members"].get(cls, {}) if not n.startswith("_"))
               for cls in NOT_HERE_CLASSES}
    return {"torch": api["torch"], "modules": modules, "members": members}


def cmd_names(args):
    api = json.loads(Path(args.api).read_text())
    names = not_here_names(api)
    Path(args.out).write_text(json.dumps(names, indent=0, sort_keys=True) + "\n")
    print(f"{sum(map(len, names['modules'].values())) + sum(map(len, names['members'].values()))} "
          f"names of torch {names['torch']} -> {args.out}")


def cmd_api(args):
    api = build_api()
    Path(args.out).write_text(json.dumps(api, indent=0, sort_keys=True) + "\n")
    print(f"torch {api['torch']}: {len(api['modules'])} modules, "
          f"{sum(map(len, api['modules'].values()))} names -> {args.out}")


# ---------------------------------------------------------------------------------------
# 2. the corpus: copy the listed files out of fetched git directories
# ---------------------------------------------------------------------------------------

CODE_SUFFIXES = (".py", ".ipynb")


def git_dir(mirror, repo):
    """The git directory of ``owner/name`` under ``mirror``: the fetch tool's layout
    (owner+name/repo, a bare or a work-tree clone) or a plain owner/name clone."""
    owner, name = repo.split("/")
    for cand in (Path(mirror) / f"{owner}+{name}" / "repo", Path(mirror) / f"{owner}+{name}",
                 Path(mirror) / owner / name):
        if (cand / ".git").is_dir():
            return cand / ".git"
        if (cand / "HEAD").is_file() and (cand / "objects").is_dir():
            return cand
    return None


def selected(path, entry, generic_exclude):
    if not path.endswith(CODE_SUFFIXES):
        return False
    if not any(fnmatch.fnmatch(path, pat) for pat in entry.get("include", ["*"])):
        return False
    excluded = entry.get("exclude", []) + generic_exclude
    return not any(fnmatch.fnmatch(path, pat) for pat in excluded)


def read_blobs(gd, shas):
    """{sha: bytes} of the blobs git has (a snapshot may lack its largest files)."""
    proc = subprocess.run(["git", "--git-dir", str(gd), "cat-file", "--batch"],
                          input="".join(f"{sha}\n" for sha in shas).encode(),
                          capture_output=True, check=True)
    out, data, i = {}, proc.stdout, 0
    while i < len(data):
        nl = data.index(b"\n", i)
        head = data[i:nl].decode().split()
        if head[-1] == "missing":
            i = nl + 1
            continue
        sha, size = head[0], int(head[2])
        out[sha] = data[nl + 1:nl + 1 + size]
        i = nl + 1 + size + 1
    return out


def cmd_extract(args):
    manifest = json.loads(Path(args.manifest).read_text())
    out = Path(args.out)
    missing, record = [], {}
    for src in manifest["sources"]:
        for entry in src["repos"]:
            gd = git_dir(args.mirror, entry["repo"])
            if gd is None:
                missing.append(entry["repo"])
                continue
            tree = subprocess.run(["git", "--git-dir", str(gd), "ls-tree", "-r", entry["commit"]],
                                  capture_output=True, text=True)
            if tree.returncode:
                sys.exit(f"{entry['repo']}: commit {entry['commit']} is not in {gd}")
            files = {}
            for line in tree.stdout.splitlines():
                meta, path = line.split("\t", 1)
                mode, kind, sha = meta.split()
                if kind == "blob" and selected(path, entry, manifest.get("generic_exclude", [])):
                    files[path] = sha
            blobs = read_blobs(gd, sorted(set(files.values())))
            dest = out / src["id"] / entry["repo"].replace("/", "+")
            absent = []
            for path, sha in files.items():
                if sha not in blobs:
                    absent.append(path)
                    continue
                target = dest / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(blobs[sha])
            note = (f" ({len(absent)} absent from the snapshot: {', '.join(absent)})"
                    if absent else "")
            print(f"{src['id']:14} {entry['repo']}: {len(files) - len(absent)} files{note}")
            record.setdefault(src["id"], {})[entry["repo"]] = {
                "files": len(files) - len(absent), "absent": sorted(absent)}
    (out / "EXTRACTED.json").write_text(json.dumps(record, indent=1) + "\n")
    if missing:
        sys.exit("not found under the mirror (fetch or clone them first): " + ", ".join(missing))


# ---------------------------------------------------------------------------------------
# 3. reading code: .py files and notebooks' code cells
# ---------------------------------------------------------------------------------------

PY_CELL_MAGICS = {"time", "timeit", "capture", "prun", "writefile", "debug", "px",
                  "autoreload", "cache"}
MAGIC_LINE = re.compile(r"^(\s*)(?:[%!]|\w+\s*=\s*[%!][^=]|\?|[\w.]+\?\??\s*$)")


def clean_cell(source):
    """A code cell's Python, IPython magics and shell lines replaced by ``pass``; None for
    a cell that is not Python (%%bash, %%html, ...)."""
    lines = source.split("\n")
    if lines and lines[0].lstrip().startswith("%%"):
        magic = lines[0].lstrip()[2:].split()[0] if lines[0].lstrip()[2:].split() else ""
        if magic not in PY_CELL_MAGICS:
            return None
        lines = lines[1:]
        if magic == "writefile":     # a file's text: Python only when it is a .py file
            head = source.split("\n", 1)[0]
            if not head.rstrip().endswith(".py"):
                return None
    out = []
    for line in lines:
        m = MAGIC_LINE.match(line)
        out.append(m.group(1) + "pass" if m else line)
    return "\n".join(out)


def code_units(path):
    """[(label, source)] of a file: one unit for a .py file, one per code cell of a
    notebook (label "cell N", N counting every cell from 1)."""
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    if not str(path).endswith(".ipynb"):
        return [("", text)]
    try:
        nb = json.loads(text)
    except json.JSONDecodeError:
        return []
    units = []
    cells = nb.get("cells") or [c for ws in nb.get("worksheets", []) for c in ws.get("cells", [])]
    for i, cell in enumerate(cells, 1):
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        if isinstance(src, list):
            src = "".join(src)
        src = clean_cell(src)
        if src is not None and src.strip():
            units.append((f"cell {i}", src))
    return units


def code_lines(source):
    return sum(1 for line in source.split("\n")
               if line.strip() and not line.strip().startswith("#"))


# ---------------------------------------------------------------------------------------
# 4. names and receivers
# ---------------------------------------------------------------------------------------

TENSOR, UNKNOWN = "tensor", "unknown"
TENSORS = "tensors"          # a tuple of tensors (split, sort, max(dim), autograd.grad ...)
NON_TENSOR = {"numpy", "pandas", "str", "list", "dict", "set", "tuple", "number", "bool",
              "none", "pymodule", "other", "size", "dtype", "device", "function", "class",
              "loader", "dataset", "sampler", "generator", "iter"}
# the receivers that stand for a class of torch's objects
CLASS_OF_TYPE = {"module": "torch.nn.Module", "optimizer": "torch.optim.Optimizer",
                 "scheduler": "torch.optim.lr_scheduler.LRScheduler",
                 "dist": "torch.distributions.Distribution",
                 "ctx": "torch.autograd.function.FunctionCtx"}
# Tensor names Python's containers and strings also have: a receiver of unknown type needs
# evidence of a tensor (a tensor-only keyword, a number where a string splits)
AMBIGUOUS = {"split", "sort", "index", "values", "resize"}
TENSOR_EVIDENCE_KW = {"dim", "descending", "stable", "split_size", "split_size_or_sections",
                      "split_size_or_sizes"}
# receivers named like settings objects are not tensors (args.device, config.name, ...)
SETTINGS_NAMES = {"args", "arg", "config", "cfg", "conf", "opt", "opts", "options", "params",
                  "hparams", "hp", "settings", "flags", "FLAGS", "parser", "kwargs", "ns",
                  "self.config", "self.cfg", "self.args", "self.hparams", "train_config",
                  "model_config", "CFG", "Config", "os", "sys", "np", "plt"}
# matplotlib's figures and axes (ax.scatter is not Tensor.scatter)
PLOT_NAMES = re.compile(
    r"(^|\.)(ax|axs|axes|axis|fig|figure|ax\d+|axes\d+|subplot|plot|plt)(\[\.\.\.\])*$")
STDLIB_NON_TENSOR = {"os", "sys", "re", "json", "time", "math", "random", "collections",
                     "itertools", "functools", "pathlib", "glob", "pickle", "string", "shutil",
                     "argparse", "logging", "datetime", "csv", "io", "urllib", "requests",
                     "zipfile", "tarfile", "typing", "dataclasses", "warnings", "subprocess",
                     "matplotlib", "seaborn", "PIL", "cv2", "tqdm", "IPython", "sklearn",
                     "inspect", "textwrap", "hashlib", "gzip", "struct", "copy", "operator",
                     "platform", "timeit", "unicodedata", "heapq", "bisect", "statistics"}
FUNCTORCH_AS = "torch.func"     # functorch's public API became torch.func

# torch functions whose result is not a tensor (everything else in the tensor-returning
# namespaces is taken as a tensor)
RESULT_OF = {
    "torch.device": "device", "torch.Size": "size", "torch.manual_seed": "generator",
    "torch.Generator": "generator", "torch.seed": "number", "torch.initial_seed": "number",
    "torch.is_tensor": "bool", "torch.is_floating_point": "bool", "torch.is_complex": "bool",
    "torch.numel": "number", "torch.save": "none", "torch.load": UNKNOWN,
    "torch.no_grad": "other", "torch.enable_grad": "other", "torch.set_grad_enabled": "other",
    "torch.inference_mode": "other", "torch.is_grad_enabled": "bool",
    "torch.get_default_dtype": "dtype", "torch.set_default_dtype": "none",
    "torch.set_printoptions": "none", "torch.compile": UNKNOWN, "torch.finfo": "other",
    "torch.iinfo": "other", "torch.typename": "str", "torch.vmap": "function",
    "torch.autocast": "other", "torch.use_deterministic_algorithms": "none",
    "torch.set_num_threads": "none", "torch.get_num_threads": "number",
    "torch.set_float32_matmul_precision": "none", "torch.get_rng_state": TENSOR,
    "torch.autograd.grad": TENSORS, "torch.autograd.Variable": TENSOR,
    "torch.utils.data.random_split": "list", "torch.utils.data.default_collate": UNKNOWN,
    "torch.nn.functional.pad": TENSOR, "torch.func.functional_call": UNKNOWN,
    "torch.nn.utils.clip_grad_norm_": TENSOR, "torch.nn.Parameter": TENSOR,
}
TENSOR_NAMESPACES = ("torch", "torch.nn.functional", "torch.linalg", "torch.special",
                     "torch.fft", "torch.nn.init", "torch.distributions.kl")
TUPLE_FUNCTIONS = {"split", "chunk", "unbind", "meshgrid", "broadcast_tensors", "sort", "topk",
                   "kthvalue", "std_mean", "var_mean", "svd", "qr", "eigh", "eig", "slogdet",
                   "lu", "tensor_split", "hsplit", "vsplit", "dsplit", "aminmax",
                   "histogram", "lstsq", "frexp", "cummax", "cummin"}
DIM_TUPLE_FUNCTIONS = {"max", "min", "median", "mode", "nanmedian"}   # a tuple when given dim
TENSOR_METHOD_RESULT = {
    "item": "number", "tolist": "list", "numpy": "numpy", "size": "size", "dim": "number",
    "ndimension": "number", "numel": "number", "nelement": "number", "element_size": "number",
    "get_device": "number", "data_ptr": "number", "stride": "other", "equal": "bool",
    "storage": "other", "untyped_storage": "other", "backward": "none",
    "register_hook": "other", "type": UNKNOWN, "storage_offset": "number", "__len__": "number"}
MODULE_METHOD_RESULT = {
    "parameters": "iter:tensor", "buffers": "iter:tensor", "children": "iter:module",
    "modules": "iter:module", "named_parameters": "iter:pair:tensor",
    "named_buffers": "iter:pair:tensor", "named_children": "iter:pair:module",
    "named_modules": "iter:pair:module", "state_dict": "dict", "load_state_dict": "other",
    "forward": TENSOR, "zero_grad": "none", "register_forward_hook": "other",
    "register_full_backward_hook": "other", "register_forward_pre_hook": "other",
    "register_backward_hook": "other", "extra_repr": "str", "get_submodule": "module",
    "get_parameter": TENSOR, "add_module": "none", "register_buffer": "none",
    "register_parameter": "none"}
DIST_TENSOR_METHODS = {"sample", "rsample", "log_prob", "entropy", "cdf", "icdf", "mean",
                       "variance", "stddev", "mode", "perplexity"}
BUILTIN_RESULT = {"list": "list", "dict": "dict", "set": "set", "tuple": "tuple", "str": "str",
                  "sorted": "list", "len": "number", "int": "number", "float": "number",
                  "round": "number", "range": "iter", "open": "other", "repr": "str",
                  "format": "str", "input": "str", "enumerate": "iter", "zip": "iter",
                  "map": "iter", "filter": "iter", "isinstance": "bool", "hasattr": "bool",
                  "type": "class", "print": "none", "vars": "dict", "bool": "bool",
                  "OrderedDict": "dict", "defaultdict": "dict", "Counter": "dict",
                  "namedtuple": "class", "abs": UNKNOWN, "sum": UNKNOWN, "max": UNKNOWN,
                  "min": UNKNOWN}
OPERATORS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
             ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul",
             ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor", ast.LShift: "lshift",
             ast.RShift: "rshift"}
COMPARISONS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq",
               ast.NotEq: "ne"}
UNARY = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert"}
BUILTIN_DUNDERS = {"len": "__len__", "float": "__float__", "int": "__int__", "abs": "__abs__",
                   "bool": "__bool__", "iter": "__iter__", "round": "__round__"}
TRACKED_PREFIXES = ("torch.func.", "torch.vmap", "torch.autograd.functional.",
                    "torch.autograd.forward_ad.", "torch.autograd.Function",
                    "torch.autograd.function.", "torch.autograd.grad")


class Api:
    def __init__(self, data):
        self.version = data["torch"]
        self.modules = data["modules"]
        self.classes = data["classes"]
        self.members = data["members"]
        self.params = data["params"]
        self.canonical = data["canonical"]
        self.tensor = self.members["torch.Tensor"]

    def resolve(self, parts):
        """(qualified name, kind) of a dotted torch path such as ["torch", "nn", "Linear"],
        stopping at the first member that is not a module; kind "module" for a module,
        "unknown" for a name torch does not have; None when the path is not torch's."""
        cur = parts[0]
        if cur not in self.modules:
            return None
        i = 1
        kind = "module"
        while i < len(parts) and kind == "module":
            if cur not in self.modules:       # a submodule whose members are not listed
                return f"{cur}.{parts[i]}", "unlisted"
            name = parts[i]
            if name.startswith("_"):
                return None
            kind = self.modules[cur].get(name)
            if kind is None:
                return f"{cur}.{name}", "unknown"
            if kind == "external":
                return None
            i += 1
            if kind.startswith("alias:"):
                cur, kind = kind[6:], "module"
            else:
                cur = f"{cur}.{name}"
        cur = self.canonical.get(cur, cur)
        rest = parts[i:]
        if rest and cur in self.members and rest[0] in self.members[cur]:
            return f"{cur}.{rest[0]}", self.members[cur][rest[0]]
        if rest and kind != "unlisted":
            return cur, "partial"       # torch.nn.Module.__init__(self): not a call of Module
        return cur, kind

    def category(self, path):
        """What an instance of the class ``path`` is ("module", "optimizer", "tensor",
        ...; "other" for a class of torch's with none of these bases), None for a path
        that is not a class of torch's."""
        if path in self.classes:
            return self.classes[path]
        mod, _, name = path.rpartition(".")
        return "other" if self.modules.get(mod, {}).get(name) == "class" else None


def dotted(node):
    """["a", "b", "c"] for the expression a.b.c, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def receiver_text(node):
    """a.b.c for a dotted name; a[...] for a subscript of one; else ""."""
    if isinstance(node, ast.Subscript):
        base = receiver_text(node.value)
        return base + "[...]" if base else ""
    parts = dotted(node)
    return ".".join(parts) if parts else ""


class FileAnalysis:
    """One file's uses of torch names: call ``run`` with its parsed units."""

    def __init__(self, api, path):
        self.api = api
        self.path = path
        self.aliases = {}           # local name -> torch path
        self.pymods = {}            # local name -> other module
        self.user_classes = {}      # class name -> bases (ast nodes)
        self.class_cat = {}         # class name -> category of its instances
        self.functions = set()
        self.bindings = []          # (target, value node, "assign" | "iterate", class)
        self.params = {}            # key -> type, from parameter names and annotations
        self.env = {}
        self.uses = Counter()
        self.kwargs = defaultdict(Counter)
        self.tracked = []           # (name, file, label, line) of torch.func / Function uses
        self.function_classes = []  # custom autograd.Function classes
        self.has_torch = False
        self.rebound = set()        # torch aliases also assigned something else
        self.annotated = []         # (parameter, annotation node)
        self.param_names = set()
        self.cur_class = None       # the class whose code is being read
        self.label = ""

    # -- pass 1: imports, classes, bindings ----------------------------------------------
    def collect(self, tree):
        _Collector(self).visit(tree)

    def add_import(self, node):
        if isinstance(node, ast.Import):
            for a in node.names:
                top = a.name.split(".")[0]
                if top in ("torch", "functorch"):
                    self.has_torch = True
                    path = a.name if top == "torch" else FUNCTORCH_AS + a.name[len(top):]
                    if a.asname:
                        self.aliases[a.asname] = path
                    else:
                        self.aliases[top] = "torch" if top == "torch" else FUNCTORCH_AS
                else:
                    self.pymods[a.asname or top] = a.name if a.asname else top
        elif node.module and not node.level:
            top = node.module.split(".")[0]
            if top in ("torch", "functorch"):
                self.has_torch = True
                base = node.module if top == "torch" else FUNCTORCH_AS + node.module[len(top):]
                for a in node.names:
                    if a.name == "*":
                        for n in self.api.modules.get(base, {}):
                            self.aliases.setdefault(n, f"{base}.{n}")
                    else:
                        self.aliases[a.asname or a.name] = f"{base}.{a.name}"
            else:
                for a in node.names:
                    if a.name != "*":
                        self.pymods[a.asname or a.name] = f"{node.module}.{a.name}"

    def bind(self, target, value, how, cls):
        self.bindings.append((target, value, how, cls))

    def settle(self):
        """Aliases made by assignment (F = torch.nn.functional), the categories of the
        file's classes, then the types of names, to a fixed point."""
        for target, value, how, cls in self.bindings:
            if how == "assign" and isinstance(target, ast.Name):
                parts = dotted(value)
                r = self.resolve_parts(parts) if parts and parts[0] in self.aliases else None
                if r and r[1] in ("module", "function", "class"):
                    if target.id not in self.aliases:
                        self.aliases[target.id] = r[0]
                elif target.id in self.aliases:
                    self.rebound.add(target.id)     # optim = optim.SGD(...)
            else:                                   # for data, target in loader: ...
                self.rebound |= {n.id for n in ast.walk(target)
                                 if isinstance(n, ast.Name) and n.id in self.aliases}
        for _ in range(len(self.user_classes) + 1):
            changed = False
            for name, bases in self.user_classes.items():
                cat = None
                for b in bases:
                    cat = self.base_category(b)
                    if cat:
                        break
                if cat and self.class_cat.get(name) != cat:
                    self.class_cat[name] = cat
                    changed = True
            if not changed:
                break
        # parameters, and the file's own functions and classes, shadow imported names
        own = self.param_names | self.functions | set(self.user_classes)
        self.rebound |= own & set(self.aliases)
        for arg, ann in self.annotated:
            r = self.resolve_node(ann)
            if r and r[0] in ("torch.Tensor", "torch.nn.Parameter"):
                self.params[arg] = TENSOR
            elif r and self.api.category(r[0]) == "module":
                self.params[arg] = "module"
        for _ in range(3):
            env = defaultdict(set)
            for target, value, how, cls in self.bindings:
                self.cur_class = cls
                if how == "assign":
                    self.assign_types(target, self.type_of(value), value, env)
                else:
                    self.assign_types(target, self.element_type(value), None, env)
            self.cur_class = None
            new = {}
            for key, types in env.items():
                known = types - {UNKNOWN}
                new[key] = known.pop() if len(known) == 1 else UNKNOWN
            new.update(self.params)
            if new == self.env:
                break
            self.env = new

    def base_category(self, node):
        parts = dotted(node)
        if parts and parts[0] in self.user_classes and len(parts) == 1:
            return self.class_cat.get(parts[0])
        r = self.resolve_node(node)
        if r:
            return self.api.category(r[0])
        return None

    def assign_types(self, target, typ, value, env):
        if isinstance(target, ast.Name):
            env[target.id].add(typ)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                and target.value.id == "self":
            env["self." + target.attr].add(typ)
        elif isinstance(target, (ast.Tuple, ast.List)):
            elts = target.elts
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(elts):
                for t, v in zip(elts, value.elts):
                    self.assign_types(t, self.type_of(v), v, env)
                return
            if typ.startswith("pair:") and len(elts) == 2:
                self.assign_types(elts[0], "str", None, env)
                self.assign_types(elts[1], typ[5:], None, env)
                return
            if typ.startswith("enum:") and len(elts) == 2:
                self.assign_types(elts[0], "number", None, env)
                self.assign_types(elts[1], typ[5:], None, env)
                return
            # unpacking a tensor gives tensors; another library's result (fig, ax =
            # plt.subplots()) gives that library's objects
            each = TENSOR if typ in (TENSOR, TENSORS) else "other" if typ == "other" else UNKNOWN
            for t in elts:
                self.assign_types(t.value if isinstance(t, ast.Starred) else t, each, None, env)

    def element_type(self, node):
        """The type of what iterating over ``node`` gives."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "enumerate" and node.args:
                return "enum:" + self.element_type(node.args[0])
            if node.func.id == "range":
                return "number"
        t = self.type_of(node)
        if t in (TENSOR, TENSORS, "iter:tensor"):
            return TENSOR
        if t == "other":
            return "other"
        if t == "iter:module":
            return "module"
        if t.startswith("iter:pair:"):
            return "pair:" + t[10:]
        return UNKNOWN

    # -- resolution -----------------------------------------------------------------------
    def resolve_parts(self, parts):
        root = self.aliases.get(parts[0])
        if root is None:
            return None
        r = self.api.resolve(root.split(".") + parts[1:])
        if r and parts[0] in self.rebound and (r[1] == "unknown" or len(parts) == 1):
            return None
        return r

    def resolve_node(self, node):
        parts = dotted(node)
        return self.resolve_parts(parts) if parts else None

    def type_of(self, node):
        t = self._type_of(node)
        return t if t else UNKNOWN

    def _type_of(self, node):
        if isinstance(node, ast.Constant):
            v = node.value
            return ("str" if isinstance(v, (str, bytes)) else "bool" if isinstance(v, bool)
                    else "none" if v is None else "number" if isinstance(v, (int, float, complex))
                    else UNKNOWN)
        if isinstance(node, ast.JoinedStr):
            return "str"
        if isinstance(node, (ast.List, ast.ListComp)):
            return "list"
        if isinstance(node, (ast.Dict, ast.DictComp)):
            return "dict"
        if isinstance(node, (ast.Set, ast.SetComp)):
            return "set"
        if isinstance(node, ast.Tuple):
            return "tuple"
        if isinstance(node, (ast.Lambda, ast.GeneratorExp)):
            return "function" if isinstance(node, ast.Lambda) else "iter"
        if isinstance(node, ast.Name):
            if node.id == "self" and self.cur_class is not None:
                return self.class_cat.get(self.cur_class) or "maybe-module"
            if node.id in self.aliases and node.id not in self.rebound:
                r = self.resolve_node(node)
                return "torchobj" if r else UNKNOWN
            if node.id in self.pymods:
                return "pymodule"
            if node.id in self.user_classes:
                return "class"
            if node.id in self.env:
                return self.env[node.id]
            if node.id in SETTINGS_NAMES:
                return "other"
            if node.id in self.functions:
                return "function"
            return UNKNOWN
        if isinstance(node, ast.Attribute):
            r = self.resolve_node(node)
            if r:
                return "dtype" if r[1] == "dtype" else "torchobj"
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                key = "self." + node.attr
                if key in self.env:
                    return self.env[key]
                if key in SETTINGS_NAMES:
                    return "other"
            base = self.type_of(node.value)
            if base in (TENSOR,):
                if node.attr in ("data", "grad", "T", "mT", "H", "mH", "real", "imag"):
                    return TENSOR
                return {"shape": "size", "dtype": "dtype",
                        "device": "device"}.get(node.attr, UNKNOWN)
            if base == "module" and node.attr in ("weight", "bias"):
                return TENSOR
            if base == "numpy":
                return "numpy"
            if base in ("pymodule", "other", "str") or base in NON_TENSOR:
                return "other"
            return UNKNOWN
        if isinstance(node, ast.Subscript):
            base = self.type_of(node.value)
            if base in (TENSOR, TENSORS):
                return TENSOR
            if base in ("numpy", "pandas", "str", "other"):
                return base
            return UNKNOWN
        if isinstance(node, ast.BinOp):
            a, b = self.type_of(node.left), self.type_of(node.right)
            if TENSOR in (a, b):
                return TENSOR
            if "numpy" in (a, b):
                return "numpy"
            if a == "str":
                return "str"
            if a == b == "number":
                return "number"
            if a == b and a in ("list", "tuple"):
                return a
            return UNKNOWN
        if isinstance(node, ast.UnaryOp):
            return self.type_of(node.operand) if not isinstance(node.op, ast.Not) else "bool"
        if isinstance(node, ast.Compare):
            types = {self.type_of(node.left)} | {self.type_of(c) for c in node.comparators}
            return TENSOR if TENSOR in types else ("numpy" if "numpy" in types else "bool")
        if isinstance(node, ast.IfExp):
            a, b = self.type_of(node.body), self.type_of(node.orelse)
            return a if a == b else UNKNOWN
        if isinstance(node, ast.Call):
            return self.call_type(node)
        return UNKNOWN

    def call_type(self, node):
        f = node.func
        r = self.resolve_node(f) if isinstance(f, (ast.Name, ast.Attribute)) else None
        if r:
            name, kind = r
            if name in RESULT_OF:
                return RESULT_OF[name]
            if name.startswith("torch.Tensor."):
                return self.tensor_method_result(name[13:], node)
            if kind == "class":
                cat = self.api.category(name)
                return {"tensor": TENSOR, "other": "other"}.get(cat, cat or UNKNOWN)
            mod, _, short = name.rpartition(".")
            if mod in TENSOR_NAMESPACES and kind == "function":
                if short in TUPLE_FUNCTIONS:
                    return TENSORS
                if short in DIM_TUPLE_FUNCTIONS and (len(node.args) > 1 or any(
                        k.arg == "dim" for k in node.keywords)):
                    return TENSORS
                return TENSOR
            if mod.startswith("torch.func") or mod == "torch.autograd.functional":
                return "function" if mod == "torch.func" and short in (
                    "vmap", "grad", "grad_and_value", "jacrev", "jacfwd", "hessian") else UNKNOWN
            return "other"
        if isinstance(f, ast.Name):
            if f.id in self.user_classes:
                return self.class_cat.get(f.id) or "other"
            if f.id in self.env and self.env[f.id] == "module":
                return TENSOR          # calling a module runs its forward
            if f.id in BUILTIN_RESULT and f.id not in self.env:
                return BUILTIN_RESULT[f.id]
            if f.id in self.pymods:
                return self.pymod_result(self.pymods[f.id])
            return UNKNOWN
        if isinstance(f, ast.Attribute):
            parts = dotted(f)
            if parts and parts[0] in self.pymods and not (parts[0] in self.env):
                full = self.pymods[parts[0]] + "." + ".".join(parts[1:])
                return self.pymod_result(full)
            base = self.type_of(f.value)
            if base == "module":
                if f.attr in self.api.members["torch.nn.Module"]:
                    res = MODULE_METHOD_RESULT.get(f.attr)
                    return res if res else "module"
                return UNKNOWN
            if base == "class" and f.attr == "apply" and isinstance(f.value, ast.Name) and \
                    self.class_cat.get(f.value.id) == "function":
                return TENSOR
            if base == "dist" and f.attr in DIST_TENSOR_METHODS:
                return TENSOR
            if base in (TENSOR, UNKNOWN) and f.attr in self.api.tensor:
                if base == UNKNOWN and f.attr in AMBIGUOUS:
                    return UNKNOWN
                return self.tensor_method_result(f.attr, node)
            if base in ("numpy", "pandas", "str"):
                return "list" if (base == "str" and f.attr == "split") else base
            if base in NON_TENSOR or base == "pymodule":
                return "other"
            return UNKNOWN
        if isinstance(f, ast.Call):   # model(x) where model = Net() inline, vmap(f)(x)
            inner = self.type_of(f)
            return TENSOR if inner in ("module", "function") else UNKNOWN
        if isinstance(f, ast.Subscript):
            return TENSOR if self.type_of(f.value) == "module" else UNKNOWN
        return UNKNOWN

    def tensor_method_result(self, name, node):
        if name in TENSOR_METHOD_RESULT:
            return TENSOR_METHOD_RESULT[name]
        if name.startswith("is_"):
            return "bool"
        if name in TUPLE_FUNCTIONS:
            return TENSORS
        if name in DIM_TUPLE_FUNCTIONS and (node.args or any(k.arg == "dim"
                                                             for k in node.keywords)):
            return TENSORS
        return TENSOR

    @staticmethod
    def pymod_result(full):
        top = full.split(".")[0]
        if top == "numpy":
            return "numpy"
        if top == "pandas":
            return "pandas"
        if top == "torchvision" and ".models." in full + ".":
            return "module"
        if top == "torchvision" and ".datasets." in full:
            return "dataset"
        if top == "torchvision" and ".transforms." in full:
            return "other"
        if top == "math":
            return "number"
        if top == "copy":
            return UNKNOWN
        if top in STDLIB_NON_TENSOR:
            return "other"
        return UNKNOWN

    # -- pass 2: counting ---------------------------------------------------------------
    def record(self, name, kwargs=(), node=None):
        if name == "torch.nn.Module.forward":
            kwargs = ()                 # a model's own forward(x, mask=...) signature
        self.uses[name] += 1
        for k in kwargs:
            self.kwargs[name][k] += 1
        if node is not None and name.startswith(TRACKED_PREFIXES):
            self.tracked.append((name, self.path, self.label, node.lineno))

    def member(self, recv, name, call=None, store=False):
        """The torch name of ``recv.name`` (a call when ``call`` is given), or None."""
        if name.startswith("_"):
            return None
        text = receiver_text(recv)
        t = self.type_of(recv)
        if t == UNKNOWN and (text in SETTINGS_NAMES or PLOT_NAMES.search(text)):
            return None
        tm = self.api.tensor
        if t == TENSOR or (t == UNKNOWN and name in tm):
            if name not in tm:
                return None
            if (call is None) != (tm[name] == "attribute") and not store:
                return None            # a method referenced without a call, or vice versa
            if t == UNKNOWN and name in AMBIGUOUS:
                if call is None:
                    return None
                kws = {k.arg for k in call.keywords}
                first = call.args[0] if call.args else None
                numeric = isinstance(first, ast.Constant) and isinstance(first.value, int) \
                    and not isinstance(first.value, bool)
                if not (kws & TENSOR_EVIDENCE_KW or (name == "split" and numeric)):
                    return None
            if t == UNKNOWN and name == "name":
                return None
            if t == UNKNOWN and call is not None:     # img.resize(..., resample=...) is PIL's
                params = self.api.params.get("torch.Tensor." + name)
                if params is not None and any(k.arg and k.arg not in params
                                              for k in call.keywords):
                    return None
            return "torch.Tensor." + name
        if t in ("module", "maybe-module"):
            return self.class_member("torch.nn.Module", name, call, store)
        if t in CLASS_OF_TYPE:
            cls = CLASS_OF_TYPE[t]
            if t == "ctx":
                return cls + "." + name if name in self.api.members[cls] else None
            return self.class_member(cls, name, call, store)
        if t == UNKNOWN:
            mod = self.api.members["torch.nn.Module"]
            opt = self.api.members["torch.optim.Optimizer"]
            sch = self.api.members["torch.optim.lr_scheduler.LRScheduler"]
            low = text.lower()
            order = ["torch.nn.Module", "torch.optim.Optimizer",
                     "torch.optim.lr_scheduler.LRScheduler"]
            if "opt" in low and name in opt:
                order.insert(0, "torch.optim.Optimizer")
            if "sched" in low and name in sch:
                order.insert(0, "torch.optim.lr_scheduler.LRScheduler")
            if name in ("log_prob", "rsample", "entropy", "icdf", "batch_shape", "event_shape"):
                order.append("torch.distributions.Distribution")
            for cls in order:
                if name in self.api.members[cls]:
                    return self.class_member(cls, name, call, store, strict=True)
        return None

    def class_member(self, cls, name, call, store, strict=False):
        """``cls.name`` when it is a member of that kind (method for a call, attribute
        otherwise); ``strict`` (a receiver of unknown type): the call must also fit the
        method's signature (cs231n's ``classifier.train(X, y, learning_rate=...)`` is not
        ``Module.train``)."""
        kind = self.api.members[cls].get(name)
        if kind is None:
            return None
        if (call is None) != (kind == "attribute") and not store:
            return None
        if strict and call is not None:
            params = self.api.params.get(f"{cls}.{name}")
            if params is not None:
                if len(call.args) > len(params) or any(
                        k.arg and k.arg not in params for k in call.keywords):
                    return None
        return f"{cls}.{name}"

    def run(self, units):
        """Count the uses of torch names in ``units``, [(label, tree)], in order."""
        for _, tree in units:
            self.collect(tree)
        if not self.has_torch:
            return
        self.settle()
        counter = _Counter(self)
        for label, tree in units:
            self.label = label
            counter.visit(tree)


class _Counter(ast.NodeVisitor):
    def __init__(self, fa):
        self.fa = fa
        self.function_class = None

    def visit_args(self, node):
        for a in node.args:
            self.visit(a)
        for k in node.keywords:
            self.visit(k.value)

    def visit_Call(self, node):
        fa, f = self.fa, node.func
        kws = [k.arg for k in node.keywords if k.arg]
        self.python_on_torch(node)
        if isinstance(f, (ast.Name, ast.Attribute)):
            r = fa.resolve_node(f)
            if r:
                if r[1] != "module":
                    fa.record(r[0], kws if r[1] != "partial" else (), node)
                self.visit_args(node)
                return
        if isinstance(f, ast.Attribute):
            name = fa.member(f.value, f.attr, call=node)
            if name:
                fa.record(name, kws, node)
                self.note_ctx(name, node)
            elif f.attr == "apply" and isinstance(f.value, ast.Name) and \
                    fa.class_cat.get(f.value.id) == "function":
                fa.record("torch.autograd.Function.apply", kws, node)
            self.visit(f.value)
            self.visit_args(node)
            return
        self.generic_visit(node)

    def python_on_torch(self, node):
        """Python builtins that call a tensor's dunder (len, float, ...) and copy.deepcopy
        of a module or tensor."""
        fa, f = self.fa, node.func
        if len(node.args) != 1:
            return
        arg_type = fa.type_of(node.args[0])
        if isinstance(f, ast.Name) and f.id in BUILTIN_DUNDERS and arg_type == TENSOR \
                and f.id not in fa.env:
            fa.record("torch.Tensor." + BUILTIN_DUNDERS[f.id])
        name = f.id if isinstance(f, ast.Name) else (
            f.attr if isinstance(f, ast.Attribute) and receiver_text(f.value) == "copy" else None)
        if name in ("deepcopy", "copy") and arg_type in ("module", TENSOR):
            if name == "copy" and isinstance(f, ast.Name) and fa.pymods.get("copy") != "copy.copy":
                return
            cls = "torch.nn.Module" if arg_type == "module" else "torch.Tensor"
            fa.record(f"{cls}.__{name}__" if name == "copy" else f"{cls}.__deepcopy__")

    def note_ctx(self, name, node):
        if self.function_class is not None and name.startswith(
                "torch.autograd.function.FunctionCtx."):
            self.function_class["ctx"].add(name.rsplit(".", 1)[1])

    def visit_Attribute(self, node):
        fa = self.fa
        r = fa.resolve_node(node)
        if r:
            if r[1] != "module":
                fa.record(r[0], (), node)
            return
        name = fa.member(node.value, node.attr, store=isinstance(node.ctx, ast.Store))
        if name:
            fa.record(name, (), node)
            self.note_ctx(name, node)
        elif node.attr == "apply" and isinstance(node.value, ast.Name) and \
                fa.class_cat.get(node.value.id) == "function":
            fa.record("torch.autograd.Function.apply", (), node)   # vmap(Cube.apply)
        elif self.function_class is not None and fa.type_of(node.value) == "ctx" \
                and not node.attr.startswith("__"):
            self.function_class["ctx"].add(node.attr + " (own attribute)")
        self.visit(node.value)

    def visit_Name(self, node):
        fa = self.fa
        if isinstance(node.ctx, ast.Load) and node.id in fa.aliases:
            r = fa.resolve_node(node)
            if r and r[1] != "module":
                fa.record(r[0], (), node)

    def visit_BinOp(self, node):
        fa = self.fa
        a, b = fa.type_of(node.left), fa.type_of(node.right)
        op = OPERATORS.get(type(node.op))
        if op and TENSOR in (a, b):
            fa.record(f"torch.Tensor.__{op}__" if a == TENSOR else f"torch.Tensor.__r{op}__")
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        fa = self.fa
        op = OPERATORS.get(type(node.op))
        if op and fa.type_of(node.target) == TENSOR:
            fa.record(f"torch.Tensor.__i{op}__")
        self.generic_visit(node)

    def visit_UnaryOp(self, node):
        op = UNARY.get(type(node.op))
        if op and self.fa.type_of(node.operand) == TENSOR:
            self.fa.record(f"torch.Tensor.__{op}__")
        self.generic_visit(node)

    def visit_Compare(self, node):
        fa = self.fa
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            name = COMPARISONS.get(type(op))
            if name and TENSOR in (fa.type_of(left), fa.type_of(right)):
                fa.record(f"torch.Tensor.__{name}__")
            left = right
        self.generic_visit(node)

    def visit_Subscript(self, node):
        if self.fa.type_of(node.value) == TENSOR:
            store = isinstance(node.ctx, ast.Store)
            self.fa.record("torch.Tensor.__setitem__" if store else "torch.Tensor.__getitem__")
        self.generic_visit(node)

    def visit_ClassDef(self, node):
        fa = self.fa
        outer_class, fa.cur_class = fa.cur_class, node.name
        if fa.class_cat.get(node.name) != "function":
            self.generic_visit(node)
            fa.cur_class = outer_class
            return
        info = {"file": fa.path, "label": fa.label, "line": node.lineno, "name": node.name,
                "methods": {}, "class_attrs": [], "ctx": set()}
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                decos = []
                for d in stmt.decorator_list:
                    d = d.func if isinstance(d, ast.Call) else d
                    r = fa.resolve_node(d)
                    decos.append(r[0] if r else (receiver_text(d) or "?"))
                info["methods"][stmt.name] = decos
            elif isinstance(stmt, ast.Assign):
                info["class_attrs"] += [t.id for t in stmt.targets if isinstance(t, ast.Name)]
        fa.function_classes.append(info)
        outer, self.function_class = self.function_class, info
        self.generic_visit(node)
        self.function_class = outer
        fa.cur_class = outer_class


class _Collector(ast.NodeVisitor):
    """Pass 1 over a tree: imports, classes, functions, parameters and every binding of
    a name (with the class whose code binds it)."""

    def __init__(self, fa):
        self.fa = fa
        self.cls = None

    def visit_Import(self, node):
        self.fa.add_import(node)

    visit_ImportFrom = visit_Import

    def visit_ClassDef(self, node):
        self.fa.user_classes[node.name] = node.bases
        outer, self.cls = self.cls, node.name
        self.generic_visit(node)
        self.cls = outer

    def visit_FunctionDef(self, node):
        fa = self.fa
        fa.functions.add(node.name)
        args = node.args.posonlyargs + node.args.args
        if args and args[0].arg == "ctx":
            fa.params["ctx"] = "ctx"
        for a in args + node.args.kwonlyargs:
            fa.param_names.add(a.arg)
            if a.annotation is not None and a.arg not in ("self", "ctx"):
                fa.annotated.append((a.arg, a.annotation))
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Assign(self, node):
        for t in node.targets:
            self.fa.bind(t, node.value, "assign", self.cls)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.fa.bind(node.target, node.value, "assign", self.cls)
        self.generic_visit(node)

    def visit_NamedExpr(self, node):
        self.fa.bind(node.target, node.value, "assign", self.cls)
        self.generic_visit(node)

    def visit_For(self, node):
        self.fa.bind(node.target, node.iter, "iterate", self.cls)
        self.generic_visit(node)

    visit_AsyncFor = visit_For
    visit_comprehension = visit_For

    def visit_With(self, node):
        for item in node.items:
            if item.optional_vars is not None:
                self.fa.bind(item.optional_vars, item.context_expr, "assign", self.cls)
        self.generic_visit(node)

    visit_AsyncWith = visit_With


def parse_file(path):
    """([(label, tree)], code lines parsed, units that did not parse)."""
    units, lines, bad = [], 0, 0
    for label, src in code_units(path):
        try:
            tree = ast.parse(src)
        except (SyntaxError, ValueError):
            bad += 1
            continue
        units.append((label, tree))
        lines += code_lines(src)
    return units, lines, bad


def analyse_file(api, path, rel):
    units, lines, bad = parse_file(path)
    fa = FileAnalysis(api, rel)
    fa.run(units)
    return fa, lines, bad, len(units)


# ---------------------------------------------------------------------------------------
# 5. counting a corpus
# ---------------------------------------------------------------------------------------

def load_api(path=API_JSON):
    return Api(json.loads(Path(path).read_text()))


def kind_of(name, api):
    """The group a counted name belongs to, e.g. "nn", "Tensor method", "Module method"."""
    for cls, label in (("torch.Tensor", "Tensor"), ("torch.nn.Module", "Module"),
                       ("torch.optim.lr_scheduler.LRScheduler", "LRScheduler"),
                       ("torch.optim.Optimizer", "Optimizer"),
                       ("torch.autograd.function.FunctionCtx", "Function ctx"),
                       ("torch.autograd.Function", "autograd.Function"),
                       ("torch.distributions.Distribution", "Distribution"),
                       ("torch.utils.data.DataLoader", "DataLoader")):
        if name.startswith(cls + "."):
            member = name[len(cls) + 1:]
            if label == "Tensor" and member.startswith("__"):
                return "Tensor operator"
            if label in ("Function ctx", "autograd.Function"):
                return label
            what = api.members[cls].get(member, "method")
            return f"{label} {what}"
    mod = name.rpartition(".")[0]
    if mod in api.modules and name.rpartition(".")[2] in api.modules[mod]:
        return "torch" if mod == "torch" else mod[len("torch."):]
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):      # under a submodule the table does not list
        parent = ".".join(parts[:i])
        if parent in api.modules:
            if api.modules[parent].get(parts[i]) == "module":
                return ".".join(parts[1:i + 1])
            break
    return "not in torch " + api.version.split("+")[0]


def count_corpus(corpus, api, manifest=None):
    """Walk ``corpus``/<source>/... and count. Returns a dict with per-source results."""
    corpus = Path(corpus)
    sources = {}
    for src_dir in sorted(p for p in corpus.iterdir() if p.is_dir()):
        stats = {"files": 0, "torch_files": 0, "notebooks": 0, "py": 0, "lines": 0,
                 "torch_lines": 0, "units": 0, "bad_units": 0, "uses": Counter(),
                 "kwargs": defaultdict(Counter), "file_rows": [], "tracked": [],
                 "function_classes": [], "name_files": Counter()}
        for path in sorted(src_dir.rglob("*")):
            if not path.is_file() or not path.name.endswith(CODE_SUFFIXES):
                continue
            rel = str(path.relative_to(src_dir))
            fa, lines, bad, n_units = analyse_file(api, path, rel)
            stats["files"] += 1
            stats["notebooks" if rel.endswith(".ipynb") else "py"] += 1
            stats["lines"] += lines
            stats["units"] += n_units
            stats["bad_units"] += bad
            if fa.has_torch:
                stats["torch_files"] += 1
                stats["torch_lines"] += lines
            stats["uses"].update(fa.uses)
            stats["name_files"].update(fa.uses.keys())
            for name, kws in fa.kwargs.items():
                stats["kwargs"][name].update(kws)
            stats["tracked"] += fa.tracked
            stats["function_classes"] += fa.function_classes
            stats["file_rows"].append((rel, lines, bad, n_units, sum(fa.uses.values()),
                                       len(fa.uses), fa.has_torch))
        sources[src_dir.name] = stats
    return sources


def table(sources, api):
    """The rows of torch_names.csv, most used first."""
    names = defaultdict(lambda: {"sources": [], "uses": 0, "files": 0,
                                 "kw_sources": Counter(), "kw_uses": Counter()})
    for sid, st in sources.items():
        for name, n in st["uses"].items():
            row = names[name]
            row["sources"].append(sid)
            row["uses"] += n
            row["files"] += st["name_files"][name]
            for k, m in st["kwargs"].get(name, {}).items():
                row["kw_sources"][k] += 1
                row["kw_uses"][k] += m
    rows = []
    for name, row in names.items():
        rows.append({"name": name, "kind": kind_of(name, api), "sources": len(row["sources"]),
                     "uses": row["uses"], "files": row["files"],
                     "kwargs": sorted(((k, row["kw_sources"][k], row["kw_uses"][k])
                                       for k in row["kw_sources"]),
                                      key=lambda t: (-t[1], -t[2], t[0])),
                     "source_ids": sorted(row["sources"])})
    rows.sort(key=lambda r: (-r["sources"], -r["uses"], r["name"]))
    for i, r in enumerate(rows, 1):
        r["rank"] = i
    return rows


def format_kwargs(kwargs):
    return "; ".join(f"{k} {s}/{u}" for k, s, u in kwargs)


def parse_kwargs(text):
    out = []
    for part in filter(None, (p.strip() for p in text.split(";"))):
        k, su = part.rsplit(" ", 1)
        s, u = su.split("/")
        out.append((k, int(s), int(u)))
    return out


CSV_FIELDS = ["rank", "name", "kind", "sources", "uses", "files", "kwargs", "source_ids"]


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(CSV_FIELDS)
        for r in rows:
            w.writerow([r["rank"], r["name"], r["kind"], r["sources"], r["uses"], r["files"],
                        format_kwargs(r["kwargs"]), " ".join(r["source_ids"])])


def read_csv(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows.append({"rank": int(r["rank"]), "name": r["name"], "kind": r["kind"],
                         "sources": int(r["sources"]), "uses": int(r["uses"]),
                         "files": int(r["files"]), "kwargs": parse_kwargs(r["kwargs"]),
                         "source_ids": r["source_ids"].split()})
    return rows


def split_repo_dir(rel):
    """("owner/name", path) of a file's path under its source's folder."""
    repo, _, path = rel.partition("/")
    if not path:
        return "", repo
    return repo.replace("+", "/", 1), path


def write_sources_md(sources, manifest, rows, path, extracted=None):
    by_id = {s["id"]: s for s in manifest["sources"]} if manifest else {}
    extracted = extracted or {}
    tot = Counter()
    for st in sources.values():
        for k in ("files", "torch_files", "notebooks", "py", "lines", "torch_lines"):
            tot[k] += st[k]
    distinct = Counter()
    for r in rows:
        for sid in r["source_ids"]:
            distinct[sid] += 1
    out = ["# The corpus: learners' PyTorch code, by source", "",
           "Generated by `tools/torch_usage.py count` (see README.md here); do not edit by hand.",
           "", f"{len(sources)} sources, {tot['files']} files read ({tot['notebooks']} notebooks, "
           f"{tot['py']} .py files), {tot['torch_files']} of them importing torch; "
           f"{tot['torch_lines']:,} lines of code in those (blank and comment lines not "
           f"counted; {tot['lines']:,} in all files read).", "",
           "| source | kind | repositories | files (torch) | lines | names used | uses |",
           "|---|---|---|---|---|---|---|"]
    for sid, st in sources.items():
        meta = by_id.get(sid, {})
        repos = ", ".join(e["repo"] for e in meta.get("repos", []))
        out.append(f"| {sid} | {meta.get('kind', '')} | {repos} | {st['files']} "
                   f"({st['torch_files']}) | {st['torch_lines']:,} | {distinct[sid]} | "
                   f"{sum(st['uses'].values()):,} |")
    out.append("")
    for sid, st in sources.items():
        meta = by_id.get(sid, {})
        out += [f"## {sid}: {meta.get('title', sid)}", "", meta.get("what", ""), ""]
        for e in meta.get("repos", []):
            branch = f" (branch {e['branch']})" if e.get("branch") else ""
            inc = ", ".join(f"`{p}`" for p in e.get("include", ["*"]))
            exc = ", ".join(f"`{p}`" for p in e.get("exclude", []))
            absent = extracted.get(sid, {}).get(e["repo"], {}).get("absent", [])
            note = (f"; not in the snapshot (files of 4 MiB or more, notebooks stored with "
                    f"their outputs): {', '.join(f'`{a}`' for a in absent)}") if absent else ""
            out.append(f"- https://github.com/{e['repo']} at `{e['commit']}`{branch}: "
                       f"paths {inc}" + (f", leaving out {exc}" if exc else "") + note)
        out.append("")
        out.append(f"{st['files']} files ({st['notebooks']} notebooks, {st['py']} .py), "
                   f"{st['torch_files']} importing torch, {st['torch_lines']:,} lines of "
                   f"code in those; {st['bad_units']} of {st['units'] + st['bad_units']} "
                   f"cells/files did not parse and were skipped; {distinct[sid]} torch names, "
                   f"{sum(st['uses'].values()):,} uses.")
        folders = Counter()
        for rel, lines, bad, n_units, uses, n_names, has_torch in st["file_rows"]:
            if has_torch:
                repo, p = split_repo_dir(rel)
                folders[(repo, os.path.dirname(p) or ".")] += 1
        if folders:
            out.append("Files that import torch, by folder: " + "; ".join(
                f"{repo}:{folder} ({n})" for (repo, folder), n in sorted(folders.items())) + ".")
        out.append("")
    out.append("Every file read, with its counts, is listed in FILES.tsv.")
    Path(path).write_text("\n".join(out) + "\n")


def write_files_tsv(sources, path):
    lines = ["source\trepository\tpath\tlines\tunits_skipped\ttorch\tnames\tuses"]
    for sid, st in sources.items():
        for rel, n_lines, bad, n_units, uses, n_names, has_torch in st["file_rows"]:
            repo, p = split_repo_dir(rel)
            lines.append("\t".join(map(str, (sid, repo, p, n_lines, bad, int(has_torch),
                                              n_names, uses))))
    Path(path).write_text("\n".join(lines) + "\n")


def write_functions_md(sources, rows, path):
    out = ["# Custom autograd.Function and torch.func in learners' code", "",
           "Generated by `tools/torch_usage.py count`; do not edit by hand. Locations are "
           "`repository:path` with the notebook cell (counting every cell from 1) and the "
           "line within it.", ""]
    out += ["## Custom autograd.Function classes", "",
            "| source | where | class | methods (decorators) | class attributes | ctx used |",
            "|---|---|---|---|---|---|"]
    n = 0
    for sid, st in sources.items():
        for fc in st["function_classes"]:
            repo, p = split_repo_dir(fc["file"])
            where = (f"{repo}:" if repo else "") + p + (f" {fc['label']}" if fc["label"] else "") \
                + f" line {fc['line']}"
            methods = ", ".join(m + (f" ({', '.join(d)})" if d else "")
                                for m, d in fc["methods"].items())
            out.append(f"| {sid} | {where} | {fc['name']} | {methods} | "
                       f"{', '.join(fc['class_attrs'])} | {', '.join(sorted(fc['ctx']))} |")
            n += 1
    out += ["", f"{n} classes in {sum(1 for st in sources.values() if st['function_classes'])} "
            "sources.", ""]
    out += ["## torch.func, torch.autograd.functional, forward_ad and Function names", "",
            "Each name with the files that use it (source, file, then the cells or lines).", "",
            "| name | sources | uses | where |", "|---|---|---|---|"]
    where = defaultdict(lambda: defaultdict(list))
    for sid, st in sources.items():
        for name, rel, label, line in st["tracked"]:
            where[name][(sid, rel)].append(f"{label} l.{line}".strip())
    for r in rows:
        if r["name"].startswith(TRACKED_PREFIXES) and r["name"] in where:
            locs = []
            for (sid, rel), spots in list(where[r["name"]].items())[:8]:
                repo, p = split_repo_dir(rel)
                more = f" (+{len(spots) - 4})" if len(spots) > 4 else ""
                locs.append(f"{sid} `{p}` {', '.join(spots[:4])}{more}")
            if len(where[r["name"]]) > 8:
                locs.append(f"... {len(where[r['name']]) - 8} more files")
            out.append(f"| {r['name']} | {r['sources']} | {r['uses']} | {'; '.join(locs)} |")
    out.append("")
    out.append("Per file: FILES.tsv. The ctx names used: "
               + ", ".join(f"{r['name'].rsplit('.', 1)[1]} ({r['sources']} sources)"
                           for r in rows if r["kind"] == "Function ctx") + ".")
    Path(path).write_text("\n".join(out) + "\n")


def cmd_count(args):
    api = load_api(args.api)
    manifest = json.loads(Path(args.manifest).read_text()) if Path(args.manifest).exists() else None
    sources = count_corpus(args.corpus, api, manifest)
    rows = table(sources, api)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(rows, out / "torch_names.csv")
    extracted = Path(args.corpus) / "EXTRACTED.json"
    extracted = json.loads(extracted.read_text()) if extracted.exists() else {}
    write_sources_md(sources, manifest, rows, out / "SOURCES.md", extracted)
    write_files_tsv(sources, out / "FILES.tsv")
    write_functions_md(sources, rows, out / "FUNCTIONS.md")
    print(f"{len(sources)} sources, {len(rows)} names, "
          f"{sum(1 for r in rows if r['sources'] >= 3)} used by 3 or more sources -> {out}")


# ---------------------------------------------------------------------------------------
# 6. coverage: which listed names autograd_lab has
# ---------------------------------------------------------------------------------------

# names that matter only on other hardware or for speed: torch accepts them on a CPU
HARDWARE_PREFIXES = ("torch.cuda", "torch.backends", "torch.mps", "torch.xpu", "torch.amp",
                     "torch.cpu.amp", "torch.autocast", "torch.set_float32_matmul_precision",
                     "torch.get_float32_matmul_precision", "torch.use_deterministic_algorithms",
                     "torch.are_deterministic_algorithms_enabled", "torch.set_num_threads",
                     "torch.get_num_threads", "torch.set_num_interop_threads", "torch.compile",
                     "torch.compiler", "torch.Tensor.cuda", "torch.Tensor.pin_memory",
                     "torch.Tensor.is_cuda", "torch.Tensor.is_pinned", "torch.nn.Module.cuda",
                     "torch.Tensor.get_device", "torch.nn.DataParallel",
                     "torch.nn.parallel", "torch.distributed", "torch.multiprocessing",
                     "torch.Tensor.share_memory_", "torch.nn.Module.share_memory",
                     "torch.jit", "torch.channels_last", "torch.nn.Module.compile",
                     "torch.profiler", "torch.autograd.profiler", "torch.utils.benchmark")


# keyword arguments that only place data or pick a faster path
HARDWARE_KWARGS = {"pin_memory", "non_blocking", "num_workers", "persistent_workers",
                   "prefetch_factor", "pin_memory_device", "fused", "foreach", "capturable",
                   "memory_format"}


def hardware_only(name):
    return name.startswith(HARDWARE_PREFIXES)


def listed(rows, min_sources=3, top=300):
    """The names the issue asks for: those 3 or more sources use, or the 300 most used,
    whichever set is bigger (names torch 2.13 does not have left out)."""
    rows = [r for r in rows if not r["kind"].startswith("not in torch")]
    by_sources = [r for r in rows if r["sources"] >= min_sources]
    return by_sources if len(by_sources) >= min(top, len(rows)) else rows[:top]


def _al_probe():
    """Objects of autograd_lab to look names up on (class and instance attributes)."""
    import autograd_lab as al
    probes = {"torch.Tensor": [al.Tensor, al.zeros(1)]}
    try:
        m = al.nn.Module()
        probes["torch.nn.Module"] = [al.nn.Module, m]
    except Exception:
        probes["torch.nn.Module"] = [al.nn.Module]
    p = al.zeros(1, requires_grad=True)
    opt = None
    try:
        opt = al.optim.SGD([p], lr=0.1)
        probes["torch.optim.Optimizer"] = [al.optim.Optimizer, opt]
    except Exception:
        probes["torch.optim.Optimizer"] = [getattr(al.optim, "Optimizer", None)]
    sched = getattr(al.optim, "lr_scheduler", None)
    probes["torch.optim.lr_scheduler.LRScheduler"] = [getattr(sched, "LRScheduler", None)]
    try:                              # (a scheduler's attributes, as its optimizer, are its instance's)
        probes["torch.optim.lr_scheduler.LRScheduler"].append(sched.StepLR(opt, 1))
    except Exception:
        pass
    seen = []
    Function = getattr(al.autograd, "Function", None)
    if Function is not None:
        class Probe(Function):
            @staticmethod
            def forward(ctx, x):
                seen.append(ctx)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        try:
            Probe.apply(p)
        except Exception:
            pass
    probes["torch.autograd.function.FunctionCtx"] = seen[:1] or [
        getattr(getattr(al.autograd, "function", None), "FunctionCtx", None)]
    probes["torch.autograd.Function"] = [Function]
    dist = getattr(al, "distributions", None)
    probes["torch.distributions.Distribution"] = [getattr(dist, "Distribution", None)]
    probes["torch.utils.data.DataLoader"] = [getattr(al.utils.data, "DataLoader", None)]
    return al, probes


def _has(obj, name):
    """Whether autograd_lab has ``name`` on ``obj``.  A name torch has and autograd_lab does
    not raises autograd_lab's NotInAutogradLab (an AttributeError: not_here.py), which
    counts as missing, as any error reading it does."""
    if obj is None:
        return False
    try:
        getattr(obj, name)
        return True
    except Exception:
        return False


def al_lookup(name, al, probes):
    """The autograd_lab object that stands for torch's ``name``, or None."""
    for cls, objs in probes.items():
        if name.startswith(cls + "."):
            member = name[len(cls) + 1:]
            for o in objs:
                if _has(o, member):
                    return getattr(o, member)
            return None
    parts = name.split(".")
    obj = al
    for p in parts[1:]:
        if not _has(obj, p):
            return None
        obj = getattr(obj, p)
    return obj


def al_refusal(name, al, probes):
    """autograd_lab's words refusing torch's ``name`` (the message of the NotInAutogradLab
    that reading it raises: not_here.py), or None when reading it fails otherwise (a
    typo's AttributeError) or succeeds."""
    from autograd_lab.not_here import NotInAutogradLab

    def refusal(obj, member):
        try:
            getattr(obj, member)
        except NotInAutogradLab as e:
            return str(e)
        except Exception:
            return None
        return None
    for cls, objs in probes.items():
        if name.startswith(cls + "."):
            words = [refusal(o, name[len(cls) + 1:]) for o in objs if o is not None]
            return next((w for w in words if w), None)
    obj = al
    for p in name.split(".")[1:]:
        if not _has(obj, p):
            return refusal(obj, p)
        obj = getattr(obj, p)
    return None


# keyword arguments learners pass that torch 2.13 itself refuses (a TypeError there too:
# a keyword older torch took), checked against torch by tests/torch_parity/test_torch_usage.py
TORCH_REFUSES = {"torch.tensor": {"names"}, "torch.optim.lr_scheduler.ReduceLROnPlateau": {"verbose"}}


def unaccepted_kwargs(obj, kwargs):
    """The keyword arguments of ``kwargs`` that ``obj``'s signature does not take (empty
    when it takes **kwargs or has no signature Python can read)."""
    import inspect
    try:
        target = obj.__init__ if isinstance(obj, type) else obj
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return []
    params = sig.parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in params):
        return []
    names = {p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    return [k for k in kwargs if k[0] not in names]


def status(name, al, probes):
    """(status, object or refusal) of torch's ``name`` in autograd_lab: "implemented" (the
    object), "refused" (reading it raises NotInAutogradLab: its message) or "missing"."""
    obj = al_lookup(name, al, probes)
    if obj is not None:
        return "implemented", obj
    words = al_refusal(name, al, probes)
    return ("refused", words) if words else ("missing", None)


def coverage(rows):
    """[(row, status, unaccepted kwargs or refusal)] for the listed names; status
    "implemented" (with the keyword arguments learners pass that it does not take),
    "refused" (with autograd_lab's words) or "missing"."""
    al, probes = _al_probe()
    out = []
    for r in listed(rows):
        st, found = status(r["name"], al, probes)
        if st == "implemented":
            out.append((r, st, unaccepted_kwargs(found, r["kwargs"])))
        else:
            out.append((r, st, found))
    return out


def coverage_counts(cov):
    """{"implemented": n, "refused": n, "missing": n} of a coverage list."""
    return {st: sum(1 for c in cov if c[1] == st) for st in ("implemented", "refused", "missing")}


KIND_ORDER = ["torch", "Tensor method", "Tensor attribute", "Tensor operator", "nn",
              "nn.functional", "nn.init", "nn.utils", "Module method", "Module attribute",
              "optim", "optim.lr_scheduler", "Optimizer method", "Optimizer attribute",
              "LRScheduler method", "utils.data", "autograd", "autograd.Function",
              "Function ctx", "func", "linalg", "distributions", "Distribution method"]


def kind_rank(kind):
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)


SAID = {"implemented": "yes", "refused": "refused in words", "missing": "no"}


def write_missing_md(cov, rows, path, hardware_rest=()):
    lst = [c for c in cov]
    n3 = sum(1 for r in rows if r["sources"] >= 3 and not r["kind"].startswith("not in"))
    missing = [c for c in lst if c[1] == "missing"]
    hw = [c for c in lst if hardware_only(c[0]["name"])]
    listed_names = {c[0]["name"] for c in lst}
    hw_all = [c for c in hw] + [(r, st, []) for r, st in hardware_rest
                                if r["name"] not in listed_names]
    hw_all.sort(key=lambda c: c[0]["rank"])
    soft_missing = [c for c in missing if not hardware_only(c[0]["name"])]
    counts = coverage_counts(lst)
    refused = [c for c in lst if c[1] == "refused"]
    out = ["# What autograd_lab lacks of the names learners use", "",
           "Generated by `tools/torch_usage.py coverage` from torch_names.csv and today's "
           "autograd_lab; do not edit by hand.", "",
           f"The list: the {len(lst)} names that 3 or more sources use ({n3} names) or the 300 "
           "most used, whichever is bigger. Implemented: the name exists in the matching "
           "autograd_lab namespace (al.*, al.Tensor, al.nn, al.nn.functional, al.optim, "
           "al.utils.data, al.func, al.autograd, a Module's or an optimizer's members). "
           "Refused in words: reading the name raises autograd_lab's NotInAutogradLab, "
           "whose message names it and says it is not implemented in autograd_lab and why "
           "(autograd_lab/not_here.py). Missing: neither. "
           f"**{counts['implemented']} implemented, {counts['refused']} refused in words, "
           f"{counts['missing']} missing**" + (
               f" ({len(soft_missing)} of them outside the hardware-only settings listed at "
               "the end)." if missing else "."), "",
           "Keyword arguments are shown as `name sources/uses`.", ""]
    by_kind = defaultdict(list)
    for c in soft_missing:
        by_kind[c[0]["kind"]].append(c)
    if not missing:
        out += ["## Missing", "", "None: every listed name is implemented or refused in words.", ""]
    else:
        out += ["| kind | missing |", "|---|---|"]
        for kind in sorted(by_kind, key=lambda k: (kind_rank(k), k)):
            out.append(f"| {kind} | {len(by_kind[kind])} |")
        out.append("")
    for kind in sorted(by_kind, key=lambda k: (kind_rank(k), k)):
        out += [f"## {kind}", "", "| rank | name | sources | uses | keyword arguments |",
                "|---|---|---|---|---|"]
        for r, _, _ in by_kind[kind]:
            out.append(f"| {r['rank']} | `{r['name']}` | {r['sources']} | {r['uses']} | "
                       f"{format_kwargs(r['kwargs'][:12])} |")
        out.append("")
    out += ["## Refused in words", "",
            "Listed names autograd_lab does not implement, with what it says when code reads "
            "them.", "", "| rank | name | kind | sources | uses | autograd_lab says |",
            "|---|---|---|---|---|---|"]
    for r, _, words in refused:
        out.append(f"| {r['rank']} | `{r['name']}` | {r['kind']} | {r['sources']} | {r['uses']} | "
                   f"{words.replace('|', '/')} |")
    out.append("")
    kw = [c for c in lst if c[1] == "implemented" and c[2]]
    out += ["## Implemented, but keyword arguments learners pass are not accepted", "",
            "The signature of autograd_lab's object has no parameter of that name (and no "
            "`**kwargs`).", "", "| rank | name | sources | keyword arguments not accepted | note |",
            "|---|---|---|---|---|"]
    for r, _, bad in kw:
        note = [f"{k} (torch 2.13 refuses it too)" for k, _, _ in bad
                if k in TORCH_REFUSES.get(r["name"], ())]
        out.append(f"| {r['rank']} | `{r['name']}` | {r['sources']} | {format_kwargs(bad)} |"
                   + (f" {'; '.join(note)} |" if note else " |"))
    out += ["", "## Hardware-only and speed-only settings", "",
            "Names that change nothing but where or how fast code runs (GPUs, cuDNN, threads, "
            "compilation, mixed precision, determinism switches, pinned memory). torch accepts "
            "them on a CPU-only machine (cuda.is_available() is False, the cudnn flags can be "
            "set, cuda.manual_seed does nothing), so learners' setup code runs; autograd_lab "
            "should accept them the same way and say so in its docs. Every such name of "
            "the table is listed, also those fewer than 3 sources use.", "",
            "| rank | name | kind | sources | uses | in autograd_lab | keyword arguments |",
            "|---|---|---|---|---|---|---|"]
    for r, st, _ in hw_all:
        out.append(f"| {r['rank']} | `{r['name']}` | {r['kind']} | {r['sources']} | {r['uses']} | "
                   f"{SAID[st]} | "
                   f"{format_kwargs(r['kwargs'][:8])} |")
    out += ["", "Keyword arguments of the same kind (where data lives, worker processes, fused "
            "or foreach kernels, memory layout), with the listed names learners pass them to "
            "and whether autograd_lab's object takes them:", "",
            "| keyword | sources | uses | with | taken by autograd_lab |", "|---|---|---|---|---|"]
    for kw in sorted(HARDWARE_KWARGS):
        users = [(r, s_, u) for r, status, bad in lst for k, s_, u in r["kwargs"] if k == kw]
        if not users:
            continue
        taken = []
        for r, s_, u in users:
            c = next(c for c in lst if c[0] is r)
            taken.append(f"`{r['name']}` " + ("no" if c[1] != "implemented" or any(
                k == kw for k, _, _ in c[2]) else "yes"))
        out.append(f"| {kw} | {max(s_ for _, s_, _ in users)} | {sum(u for _, _, u in users)} | "
                   f"{', '.join(r['name'] for r, _, _ in users[:6])} | {'; '.join(taken[:6])} |")
    out.append("")
    Path(path).write_text("\n".join(out) + "\n")


def cmd_coverage(args):
    sys.path.insert(0, str(ROOT))
    rows = read_csv(args.table)
    cov = coverage(rows)
    al, probes = _al_probe()
    rest = [(r, status(r["name"], al, probes)[0])
            for r in rows if hardware_only(r["name"]) and not r["kind"].startswith("not in")]
    write_missing_md(cov, rows, args.out, rest)
    n = coverage_counts(cov)
    print(f"{len(cov)} listed names: {n['implemented']} implemented, {n['refused']} refused in "
          f"words, {n['missing']} missing -> {args.out}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("api", help="write torch's namespaces (needs torch)")
    a.add_argument("--out", default=str(API_JSON))
    a.set_defaults(func=cmd_api)
    e = sub.add_parser("extract", help="copy the listed files out of fetched repositories")
    e.add_argument("--mirror", required=True, help="folder of fetched git directories")
    e.add_argument("--out", required=True)
    e.add_argument("--manifest", default=str(MANIFEST))
    e.set_defaults(func=cmd_extract)
    c = sub.add_parser("count", help="count torch names in a corpus folder")
    c.add_argument("corpus")
    c.add_argument("--out", default=str(USAGE))
    c.add_argument("--api", default=str(API_JSON))
    c.add_argument("--manifest", default=str(MANIFEST))
    c.set_defaults(func=cmd_count)
    n = sub.add_parser("names", help="write autograd_lab/torch_names.json (its \"not here\" errors)")
    n.add_argument("--api", default=str(API_JSON))
    n.add_argument("--out", default=str(NAMES_JSON))
    n.set_defaults(func=cmd_names)
    v = sub.add_parser("coverage", help="which listed names autograd_lab has")
    v.add_argument("--table", default=str(USAGE / "torch_names.csv"))
    v.add_argument("--out", default=str(USAGE / "MISSING.md"))
    v.set_defaults(func=cmd_coverage)
    args = p.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
