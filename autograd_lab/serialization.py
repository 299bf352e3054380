"""``al.save`` and ``al.load``: tensors, state_dicts and checkpoints in a file, in a format
that runs no code when it is read.

What learners save is data: ``model.state_dict()``, a checkpoint dict (epoch, the model's
and the optimizer's state, the loss), a tensor, a list of tensors.  torch writes it with
pickle, which can run code from the file; ``torch.load`` therefore reads only data by
default (``weights_only=True``).  autograd_lab keeps to that data and stores it without
pickle: a zip file holding

- ``autograd_lab.json``: the object as a tree (dicts -- with any keys torch allows,
  OrderedDicts and their ``_metadata``, lists, tuples, sets, numbers, strings, bytes,
  None, dtypes, sizes, devices) whose tensors refer to
- ``storages/<n>.npy``: each block of memory the tensors view, written once however many
  tensors view it (NumPy's .npy format, read without pickle).  A tensor is a storage, an
  offset, sizes and strides, as in torch, so views saved together are views of one block
  again after loading, and a tensor saved twice is loaded as two tensors sharing memory.

A tensor keeps its dtype, ``requires_grad`` (a leaf, as torch loads it) and whether it
is an ``nn.Parameter``.  Anything else -- a whole Module, an optimizer object, a NumPy
array, a function -- is refused when saving, with the way to save its data instead.  A
file ``torch.save`` wrote is torch's pickle format, which autograd_lab does not read.
"""
import base64
import io
import json
import os
import zipfile
from collections import OrderedDict

import numpy as np

from . import batching, devices
from .core import dtypes
from .storage import Size, root_of
from .core.tensor import Tensor

FORMAT = "autograd_lab save"
INDEX = "autograd_lab.json"
DTYPES = {d.name: d for d in (*dtypes.ALL, dtypes.bfloat16)}
CUDA_ON_CPU = ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If "
               "you are running on a CPU-only machine, please use torch.load with "
               "map_location=torch.device('cpu') to map your storages to the CPU.")


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Write ``obj`` (tensors, and dicts, lists, tuples and sets of them, numbers,
    strings...) to ``f``, a path or a binary file object."""
    if pickle_module is not None and getattr(pickle_module, "__name__", "") != "pickle":
        raise NotImplementedError("al.save does not pickle, so it takes no pickle_module: it writes its own "
                                  "format, which runs no code when loaded")
    writer = _Writer()
    tree = writer.encode(obj, "obj")
    index = {"format": FORMAT, "version": 1, "object": tree, "storages": len(writer.storages)}
    if isinstance(f, (str, os.PathLike)):
        parent = os.path.dirname(os.path.abspath(os.fspath(f)))
        if not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
        z.writestr(INDEX, json.dumps(index))
        for i, flat in enumerate(writer.storages):
            buf = io.BytesIO()
            np.save(buf, flat, allow_pickle=False)
            z.writestr(f"storages/{i}.npy", buf.getvalue())


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Read back what :func:`save` wrote.  ``map_location`` may name the CPU (a string, a
    device, a dict of them, or a function given each tensor and "cpu"); ``weights_only`` is
    accepted either way, as the file holds only data; ``mmap=True`` (with a path) maps the
    tensors' memory from the file, copy-on-write, instead of reading it in."""
    if pickle_module is not None:
        raise NotImplementedError("al.load does not unpickle, so it takes no pickle_module")
    _check_location(map_location)
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")
    try:
        z = zipfile.ZipFile(f)
    except zipfile.BadZipFile:
        raise RuntimeError(f"{_name(f)} is not a file al.save wrote (it is not even a zip file)") from None
    with z:
        names = z.namelist()
        if INDEX not in names:
            if any(n.endswith("data.pkl") for n in names):
                raise RuntimeError(f"{_name(f)} was written by torch.save, in torch's pickle format, which "
                                   "autograd_lab does not read (unpickling can run code from the file). In torch, "
                                   "save the tensors' numbers instead, e.g. {k: v.numpy() for k, v in "
                                   "state_dict.items()} with numpy.savez, and make tensors of them with al.tensor.")
            raise RuntimeError(f"{_name(f)} is not a file al.save wrote")
        index = json.loads(z.read(INDEX))
        if index.get("format") != FORMAT or index.get("version") != 1:
            raise RuntimeError(f"{_name(f)} is not a file al.save wrote (or a newer version of it)")
        storages = [_storage(z, f"storages/{i}.npy", f if mmap else None) for i in range(index["storages"])]
    return _Reader(storages, map_location).decode(index["object"])


# -- writing --------------------------------------------------------------------------------------
class _Writer:
    def __init__(self):
        self.storages, self._where = [], {}       # flat memory blocks; id(root array) -> number

    def encode(self, obj, path):
        if obj is None:
            return ["none"]
        if isinstance(obj, Tensor):
            return ["tensor", self.tensor(obj, path)]
        if isinstance(obj, bool):
            return ["bool", obj]
        if isinstance(obj, int):
            return ["int", obj]
        if isinstance(obj, float):
            return ["float", repr(obj)]
        if isinstance(obj, complex):
            return ["complex", repr(obj.real), repr(obj.imag)]
        if isinstance(obj, str):
            return ["str", obj]
        if isinstance(obj, bytes):
            return ["bytes", base64.b64encode(obj).decode()]
        if isinstance(obj, dtypes.dtype):
            return ["dtype", obj.name]
        if isinstance(obj, devices.device):
            return ["device", str(obj)]
        if type(obj) is OrderedDict or type(obj) is dict:
            items = [[self.encode(k, f"{path} key"), self.encode(v, f"{path}[{k!r}]")] for k, v in obj.items()]
            if type(obj) is dict:
                return ["dict", items]
            meta = getattr(obj, "_metadata", None)
            return ["ordered_dict", items, None if meta is None else self.encode(meta, f"{path}._metadata")]
        if type(obj) in (list, tuple, set, frozenset) or _is_size(obj):
            kind = "size" if _is_size(obj) else type(obj).__name__
            return [kind, [self.encode(v, f"{path}[{i}]") for i, v in enumerate(obj)]]
        raise TypeError(_refusal(obj, path))

    def tensor(self, t, path):
        if batching.is_batched(t):
            raise TypeError(f"al.save cannot store {path}, a batched tensor inside al.vmap: return it from the "
                            "function and save the result")
        a = t._data
        root = root_of(a)
        flat = _flat(root) if root.dtype == a.dtype else None
        if flat is None:                  # (no block of this dtype to view: the numbers alone)
            root = flat = np.ascontiguousarray(a).reshape(-1)
            a = flat.reshape(t.shape)
        number = self._where.get(id(root))
        if number is None:
            number = self._where[id(root)] = len(self.storages)
            self.storages.append(flat)
            self._where[("keep", number)] = root          # (keeps id(root) from being reused)
        offset = (_address(a) - _address(flat)) // a.itemsize if a.size else 0
        return {"storage": number, "offset": int(offset), "shape": list(a.shape),
                "stride": list(t.stride()), "requires_grad": bool(t.requires_grad),
                "parameter": bool(getattr(t, "_is_parameter", False))}


def _is_size(obj):
    return type(obj) is Size


def _refusal(obj, path):
    kind = type(obj)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    if hasattr(obj, "state_dict") and hasattr(obj, "parameters"):
        hint = ("a whole Module: save its state_dict() instead, and load it into a new model with "
                "model.load_state_dict(al.load(path))")
    elif hasattr(obj, "state_dict"):
        hint = "save its state_dict() instead, and load it back with load_state_dict"
    elif isinstance(obj, np.ndarray):
        hint = "make it a tensor first, al.from_numpy(array)"
    else:
        hint = "save the tensors and numbers it holds instead"
    return (f"al.save cannot store {path}, of type {name}: {hint}. al.save keeps data only (tensors, numbers, "
            "strings, bytes, None, dtypes, devices, sizes, and dicts, lists, tuples and sets of them), what "
            "torch.load(weights_only=True) reads back, in a format that runs no code when loaded.")


def _flat(root):
    """The memory of ``root`` as one row of numbers (None if it is not one block)."""
    if root.flags.c_contiguous or root.flags.f_contiguous:
        return np.ndarray((root.size,), root.dtype, buffer=root) if root.size else np.zeros(0, root.dtype)
    return None


def _address(array):
    return array.__array_interface__["data"][0]


# -- reading --------------------------------------------------------------------------------------
def _storage(z, name, path):
    """One block of memory: read, or (mmap) mapped from the file, copy-on-write."""
    if path is None:
        with z.open(name) as member:
            return np.load(io.BytesIO(member.read()), allow_pickle=False)
    info = z.getinfo(name)
    with open(path, "rb") as raw:
        raw.seek(info.header_offset)
        header = raw.read(30)
        start = info.header_offset + 30 + int.from_bytes(header[26:28], "little") + \
            int.from_bytes(header[28:30], "little")
        raw.seek(start)
        version = np.lib.format.read_magic(raw)
        read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0) else
                       np.lib.format.read_array_header_2_0)
        shape, fortran, dtype = read_header(raw)
        offset = raw.tell()
    if not shape[0]:
        return np.zeros(shape, dtype)
    return np.memmap(path, dtype=dtype, mode="c", offset=offset, shape=shape)


def _check_location(where):
    """map_location: the CPU only, spelled as torch lets one spell it."""
    if where is None or callable(where) and not isinstance(where, (str, devices.device)):
        return
    targets = where.values() if isinstance(where, dict) else [where]
    for t in targets:
        d = t if isinstance(t, devices.device) else devices.device(t)
        if d.type != "cpu":
            raise RuntimeError(CUDA_ON_CPU)


class _Reader:
    def __init__(self, storages, map_location):
        self.storages, self.map_location = storages, map_location

    def decode(self, node):
        kind = node[0]
        if kind == "none":
            return None
        if kind in ("bool", "int", "str"):
            return node[1]
        if kind == "float":
            return float(node[1])
        if kind == "complex":
            return complex(float(node[1]), float(node[2]))
        if kind == "bytes":
            return base64.b64decode(node[1])
        if kind == "dtype":
            return DTYPES[node[1]]
        if kind == "device":
            return devices.device(node[1])
        if kind in ("list", "tuple", "set", "frozenset", "size"):
            items = [self.decode(v) for v in node[1]]
            if kind == "size":
                return Size(items)
            return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[kind](items)
        if kind == "dict":
            return {self.decode(k): self.decode(v) for k, v in node[1]}
        if kind == "ordered_dict":
            out = OrderedDict((self.decode(k), self.decode(v)) for k, v in node[1])
            if node[2] is not None:
                out._metadata = self.decode(node[2])
            return out
        if kind == "tensor":
            return self.tensor(node[1])
        raise RuntimeError(f"al.load: this file holds a {kind!r}, which this version of autograd_lab does not know")

    def tensor(self, rec):
        flat = self.storages[rec["storage"]]
        itemsize = flat.itemsize
        a = np.lib.stride_tricks.as_strided(flat[rec["offset"]:], shape=tuple(rec["shape"]),
                                            strides=tuple(s * itemsize for s in rec["stride"]))
        t = Tensor._make(a)
        if rec["requires_grad"]:
            t.requires_grad = True
        if rec["parameter"]:
            t._is_parameter = True
        if callable(self.map_location) and not isinstance(self.map_location, (str, devices.device, dict)):
            moved = self.map_location(t, "cpu")
            if not isinstance(moved, Tensor):
                raise TypeError(f"map_location returned a {type(moved).__name__}; autograd_lab hands it each "
                                "tensor and 'cpu', and expects a tensor back (lambda storage, loc: storage)")
            return moved
        return t


def _name(f):
    return repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "the file"
