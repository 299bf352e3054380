"""Module machinery against torch: the containers (ModuleList, ModuleDict, ParameterList,
ParameterDict), forward and backward hooks, copy.deepcopy of modules and tensors, the
walks over sub-modules (shared ones listed once), and add_module's checks -- what each
returns, prints and refuses."""
import copy
import warnings
from collections import OrderedDict

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

from op_cases import error_of  # noqa: E402


def both(fn):
    """fn run on autograd_lab and on torch, each given its library."""
    return fn(al), fn(torch)


def _same(fn):
    ours, theirs = both(fn)
    assert ours == theirs, f"\n{ours}\n{theirs}"


# -- containers --------------------------------------------------------------------------------
def test_module_list_indexes_slices_appends_and_prints_as_torchs():
    def use(L):
        nn = L.nn
        layers = nn.ModuleList([nn.Linear(2, 3) for _ in range(3)])
        layers.append(nn.ReLU())
        layers.extend([nn.Linear(3, 1), nn.Linear(3, 1)])
        layers.insert(1, nn.Tanh())
        sliced = layers[1:4]
        popped = layers.pop(-1)
        del layers[0]
        both_lists = layers + nn.ModuleList([nn.Sigmoid()])
        layers[0] = nn.GELU()
        return (repr(layers), repr(sliced), type(sliced).__name__, repr(popped), len(layers), repr(both_lists),
                [n for n, _ in layers.named_parameters()], list(layers.state_dict()), repr(nn.ModuleList()),
                [type(m).__name__ for m in layers], repr(layers[-1]))
    _same(use)


def test_a_model_built_with_module_lists_trains_as_torchs():
    def train(L):
        nn = L.nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])
                self.heads = nn.ModuleDict({"a": nn.Linear(4, 1), "b": nn.Linear(4, 2)})
                self.scales = nn.ParameterList([nn.Parameter(L.ones(4)), L.full((4,), 0.5)])

            def forward(self, x):
                for block, scale in zip(self.blocks, self.scales):
                    x = L.tanh(block(x)) * scale
                return L.cat([self.heads[k](x) for k in self.heads], dim=1)
        net = Net()
        data = np.random.default_rng(0)
        with L.no_grad():
            for p in net.parameters():
                p.copy_(L.tensor(data.uniform(-0.5, 0.5, tuple(p.shape)), dtype=L.float32))
        opt = L.optim.Adam(net.parameters(), lr=0.05)
        x, y = L.tensor(data.normal(size=(6, 4)), dtype=L.float32), L.tensor(data.normal(size=(6, 3)), dtype=L.float32)
        losses = []
        for _ in range(5):
            opt.zero_grad()
            loss = ((net(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            losses.append(round(loss.item(), 5))
        return losses, [n for n, _ in net.named_parameters()], list(net.state_dict()), repr(net).replace("torch.", "al.")
    _same(train)


def test_sequential_is_changed_like_a_list_as_torchs():
    def use(L):
        nn = L.nn
        seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        seq[1] = nn.Tanh()
        seq.insert(1, nn.BatchNorm1d(3))
        seq.append(nn.Sigmoid())
        popped = seq.pop(0)
        del seq[-1]
        doubled = nn.Sequential(nn.ReLU()) * 2
        joined = seq + nn.Sequential(nn.Identity())
        named = nn.Sequential(OrderedDict([("first", nn.ReLU()), ("second", nn.Tanh())]))
        named[0] = nn.GELU()
        return (repr(seq), repr(popped), repr(doubled), repr(joined), repr(named), repr(named[1:]), len(seq),
                error_of(lambda: seq + [1]), error_of(lambda: seq * 0)[1].split(" for <")[0], error_of(lambda: seq[5]))
    _same(use)


def test_module_dict_is_reached_as_a_dict_as_torchs():
    def use(L):
        nn = L.nn
        d = nn.ModuleDict({"conv": nn.Conv2d(1, 2, 3), "act": nn.ReLU()})
        d["pool"] = nn.MaxPool2d(2)
        d.update([("out", nn.Flatten())])
        d.update(nn.ModuleDict({"act": nn.Sigmoid()}))
        popped = d.pop("conv")
        return (repr(d), list(d), list(d.keys()), [type(v).__name__ for v in d.values()], "act" in d, len(d),
                repr(popped), [k for k, _ in d.items()], repr(nn.ModuleDict()))
    _same(use)


def test_parameter_containers_register_wrap_and_print_as_torchs():
    def use(L):
        nn = L.nn
        plist = nn.ParameterList([nn.Parameter(L.ones(2)), L.zeros(2, 3), "not a tensor"])
        plist.append(L.ones(1, dtype=L.float64))
        pdict = nn.ParameterDict({"b": L.ones(3), "a": nn.Parameter(L.zeros(2))})
        pdict["c"] = L.ones(1)
        single = nn.ParameterDict({"x": L.ones(2)})
        return (repr(plist).replace("torch.float", "al.float"), len(plist), isinstance(plist[1], nn.Parameter),
                [n for n, _ in plist.named_parameters()], repr(plist[2]), list(pdict), list(pdict.keys()),
                [n for n, _ in pdict.named_parameters()], repr(pdict), repr(single), isinstance(pdict["b"], nn.Parameter),
                pdict.get("zz", 5), "a" in pdict, len(pdict[1:] if False else plist[1:]))
    ours, theirs = both(use)
    assert ours[0] == theirs[0].replace("torch.float", "al.float") and ours[1:] == theirs[1:]


CONTAINER_REFUSALS = {
    "a ModuleList index out of range": lambda L: L.nn.ModuleList([L.nn.ReLU()])[1],
    "a ModuleList extended by a module": lambda L: L.nn.ModuleList().extend(L.nn.ReLU()),
    "a number in a ModuleList": lambda L: L.nn.ModuleList([1]),
    "a ModuleDict updated with a number": lambda L: L.nn.ModuleDict().update(3),
    "a ModuleDict updated with a triple": lambda L: L.nn.ModuleDict().update([("a", L.nn.ReLU(), 1)]),
    "a ModuleDict key missing": lambda L: L.nn.ModuleDict()["x"],
    "a ParameterList extended by a tensor": lambda L: L.nn.ParameterList().extend(L.ones(2)),
    "a ParameterList called": lambda L: L.nn.ParameterList()(1),
    "a ParameterDict called": lambda L: L.nn.ParameterDict()(1),
    "a ParameterDict key that is not a string": lambda L: L.nn.ParameterDict()[1],
    "a Sequential of a number": lambda L: L.nn.Sequential(1),
    "a module name with a dot": lambda L: L.nn.Module().add_module("a.b", L.nn.ReLU()),
    "an empty module name": lambda L: L.nn.Module().add_module("", L.nn.ReLU()),
    "a module name that is not a string": lambda L: L.nn.Module().add_module(1, L.nn.ReLU()),
    "a module name already an attribute": lambda L: L.nn.Linear(1, 1).add_module("weight", L.nn.ReLU()),
    "get_submodule of a missing path": lambda L: L.nn.Sequential(L.nn.ReLU()).get_submodule("0.x"),
    "get_submodule of a parameter": lambda L: L.nn.Sequential(L.nn.Linear(1, 1)).get_submodule("0.weight"),
}


@pytest.mark.parametrize("case", list(CONTAINER_REFUSALS))
def test_containers_refuse_what_torch_refuses_in_its_words(case):
    ours, theirs = error_of(lambda: CONTAINER_REFUSALS[case](al)), error_of(lambda: CONTAINER_REFUSALS[case](torch))
    assert theirs[0] is not None and ours == theirs


def test_shared_modules_and_parameters_are_listed_once_as_torch_lists_them():
    def walk(L):
        nn = L.nn
        shared = nn.Linear(2, 2)
        model = nn.Sequential(shared, nn.ReLU(), shared, nn.Sequential(shared))
        return ([n for n, _ in model.named_modules()], [n for n, _ in model.named_modules(remove_duplicate=False)],
                [n for n, _ in model.named_parameters()], [n for n, _ in model.named_children()],
                len(list(model.modules())), len(list(model.children())), list(model.state_dict()),
                [n for n, _ in model.named_parameters(remove_duplicate=False)],
                [n for n, _ in model.named_modules(prefix="net")], type(model.get_submodule("3.0")).__name__)
    _same(walk)


def test_apply_visits_each_module_once_children_first_as_torch():
    def visit(L):
        seen = []
        shared = L.nn.Linear(1, 1)
        L.nn.Sequential(shared, L.nn.Sequential(L.nn.ReLU(), shared)).apply(lambda m: seen.append(type(m).__name__))
        return seen
    _same(visit)


# -- forward hooks ---------------------------------------------------------------------------
def test_forward_hooks_see_and_replace_inputs_and_outputs_in_torchs_order():
    def run(L):
        calls = []
        layer = L.nn.Linear(2, 2, bias=False)
        with L.no_grad():
            layer.weight.copy_(L.tensor([[1.0, 2.0], [3.0, 4.0]]))
        layer.register_forward_pre_hook(lambda m, args: calls.append(("pre", tuple(args[0].shape))))
        h2 = layer.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
        layer.register_forward_pre_hook(lambda m, args: calls.append(("first", args[0].tolist())), prepend=True)
        layer.register_forward_pre_hook(lambda m, args, kwargs: calls.append(("kw", sorted(kwargs))), with_kwargs=True)
        layer.register_forward_hook(lambda m, args, out: calls.append(("post", args[0].tolist(), out.tolist())))
        h6 = layer.register_forward_hook(lambda m, args, out: out + 1)
        layer.register_forward_hook(lambda m, args, kwargs, out: calls.append(("post kw", out.tolist())),
                                    with_kwargs=True)
        out1 = layer(L.tensor([[1.0, 1.0]])).tolist()
        h2.remove()
        h6.remove()
        out2 = layer(L.tensor([[1.0, 1.0]])).tolist()
        with layer.register_forward_hook(lambda m, a, o: o * 0):
            out3 = layer(L.tensor([[1.0, 1.0]])).tolist()
        out4 = layer(L.tensor([[1.0, 1.0]])).tolist()
        return calls, out1, out2, out3, out4
    _same(run)


def test_a_forward_hook_collects_activations_as_learners_do():
    def run(L):
        L.manual_seed(0)
        model = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.ReLU(), L.nn.Linear(4, 2))
        with L.no_grad():
            for p in model.parameters():
                p.copy_(L.linspace(-1, 1, p.numel()).reshape(*p.shape))
        activations = {}

        def keep(name):
            def hook(module, inputs, output):
                activations[name] = output.detach()
            return hook
        for name, module in model.named_modules():
            if isinstance(module, L.nn.ReLU):
                module.register_forward_hook(keep(name))
        model(L.tensor([[0.5, -1.0, 2.0]]))
        return {k: v.tolist() for k, v in activations.items()}
    _same(run)


def test_always_call_hooks_run_when_the_forward_raises_and_pre_hook_kwargs_are_checked():
    def run(L):
        seen = []

        class Broken(L.nn.Module):
            def forward(self, x):
                raise ValueError("broken forward")
        m = Broken()
        m.register_forward_hook(lambda mod, args, out: seen.append(("always", out)), always_call=True)
        m.register_forward_hook(lambda mod, args, out: seen.append(("not always", out)))
        error = error_of(lambda: m(L.ones(1)))
        bad = L.nn.ReLU()
        bad.register_forward_pre_hook(lambda mod, args, kwargs: (1, 2, 3), with_kwargs=True)
        return seen, error, error_of(lambda: bad(L.ones(1)))
    ours, theirs = both(run)
    assert ours[:2] == theirs[:2] and ours[2][0] == theirs[2][0] == "RuntimeError"
    assert ours[2][1].startswith("forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got")


# -- backward hooks ---------------------------------------------------------------------------
def _hooked_run(L, replace_input=False, replace_output=False, input_requires_grad=True):
    seen = []
    layer = L.nn.Linear(3, 2)
    with L.no_grad():
        layer.weight.copy_(L.tensor([[1.0, -2.0, 0.5], [0.0, 1.0, 3.0]]))
        layer.bias.copy_(L.tensor([0.1, -0.1]))

    def pre(module, grad_output):
        seen.append(("pre", [g.tolist() for g in grad_output]))
        return (grad_output[0] * 10,) if replace_output else None

    def full(module, grad_input, grad_output):
        seen.append(("full", [None if g is None else g.tolist() for g in grad_input],
                     [g.tolist() for g in grad_output]))
        return (grad_input[0] * -1,) if replace_input else None
    layer.register_full_backward_pre_hook(pre)
    layer.register_full_backward_hook(full)
    x = L.tensor([[1.0, 2.0, 3.0], [0.5, 0.0, -1.0]], requires_grad=input_requires_grad)
    y = layer(x)
    (y * L.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    return (seen, None if x.grad is None else x.grad.tolist(), layer.weight.grad.tolist(), y.grad_fn.name())


@pytest.mark.parametrize("replace_input, replace_output", [(False, False), (True, False), (False, True),
                                                            (True, True)])
def test_full_backward_hooks_see_and_replace_gradients_as_torchs(replace_input, replace_output):
    _same(lambda L: _hooked_run(L, replace_input, replace_output))


def test_full_backward_hooks_of_a_module_whose_input_needs_no_grad_fire_at_the_output_with_torchs_warning():
    said = []
    for lib in (al, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = _hooked_run(lib, input_requires_grad=False)
        said.append((result, [str(w.message) for w in caught if "Full backward hook" in str(w.message)]))
    assert said[0] == said[1] and said[0][1]


def test_backward_hooks_on_every_layer_of_a_network_see_torchs_gradients():
    def run(L):
        L.manual_seed(0)
        model = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.Tanh(), L.nn.Linear(4, 1))
        with L.no_grad():
            for p in model.parameters():
                p.copy_(L.linspace(-1, 1, p.numel()).reshape(*p.shape))
        norms = []
        for name, m in model.named_children():
            m.register_full_backward_hook(lambda mod, gin, gout, name=name: norms.append(
                (name, [None if g is None else round((g * g).sum().item(), 4) for g in gin],
                 round((gout[0] * gout[0]).sum().item(), 4))))
        model(L.tensor([[0.5, -1.0, 2.0], [1.0, 1.0, 1.0]], requires_grad=True)).sum().backward()
        return norms
    _same(run)


HOOK_REFUSALS = {
    "a full backward hook returning too many gradients": lambda L: _bad_hook(L, lambda m, gi, go: (gi[0], gi[0])),
    "a backward pre hook returning too many gradients": lambda L: _bad_pre_hook(L),
}


def _bad_hook(L, hook):
    layer = L.nn.Linear(2, 2)
    layer.register_full_backward_hook(hook)
    layer(L.ones(1, 2, requires_grad=True)).sum().backward()


def _bad_pre_hook(L):
    layer = L.nn.Linear(2, 2)
    layer.register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))
    layer(L.ones(1, 2, requires_grad=True)).sum().backward()


@pytest.mark.parametrize("case", list(HOOK_REFUSALS))
def test_hooks_returning_the_wrong_number_of_gradients_are_refused_in_torchs_words(case):
    ours, theirs = error_of(lambda: HOOK_REFUSALS[case](al)), error_of(lambda: HOOK_REFUSALS[case](torch))
    assert theirs[0] is not None and ours == theirs


def test_a_full_backward_hook_on_a_module_with_two_inputs_that_require_grad_is_refused_in_words():
    class Add(al.nn.Module):
        def forward(self, a, b):
            return a + b
    m = Add()
    m.register_full_backward_hook(lambda *args: None)
    kind, message = error_of(lambda: m(al.ones(2, requires_grad=True), al.ones(2, requires_grad=True)))
    assert kind == "NotImplementedError" and "one tensor input" in message


# -- copying ---------------------------------------------------------------------------------
def test_deepcopy_of_a_module_copies_parameters_buffers_and_settings_as_torch():
    def run(L):
        L.manual_seed(0)
        net = L.nn.Sequential(L.nn.Linear(2, 3), L.nn.BatchNorm1d(3), L.nn.LeakyReLU(0.3))
        net[0].weight.grad = L.ones(3, 2)
        net.eval()
        twin = copy.deepcopy(net)
        with L.no_grad():
            twin[0].weight.add_(1.0)
        return (repr(twin) == repr(net), twin[0].weight is net[0].weight,
                float((twin[0].weight - net[0].weight - 1).abs().max().detach()) < 1e-6, isinstance(twin[0].weight, L.nn.Parameter),
                twin[0].weight.requires_grad, twin[0].weight.grad is None, twin.training, twin[2].negative_slope,
                list(twin.state_dict()), twin[1].running_var is net[1].running_var,
                type(twin).__name__, twin[0].weight.grad is net[0].weight.grad)
    _same(run)


def test_deepcopy_of_tensors_copies_leaves_keeps_shared_memory_and_refuses_the_rest():
    def run(L):
        x = L.ones(4, requires_grad=True)
        x.grad = L.full((4,), 2.0)
        c = copy.deepcopy(x)
        base = L.arange(4.0)
        pair = copy.deepcopy([base, base[:2]])
        pair[0][0] = 7.0
        refused = error_of(lambda: copy.deepcopy(x * 2))
        same = copy.deepcopy([x, x])
        return (c.tolist(), c.requires_grad, c.is_leaf, c.grad.tolist(), c is x, pair[1].tolist(), base.tolist(),
                refused, same[0] is same[1])
    _same(run)


def test_a_target_network_copied_with_deepcopy_trains_apart_from_the_original():
    def run(L):
        L.manual_seed(0)
        online = L.nn.Linear(2, 1)
        with L.no_grad():
            online.weight.copy_(L.tensor([[0.5, -0.5]]))
            online.bias.zero_()
        target = copy.deepcopy(online)
        for p in target.parameters():
            p.requires_grad_(False)
        opt = L.optim.SGD(online.parameters(), lr=0.1)
        loss = ((online(L.tensor([[1.0, 2.0]])) - target(L.tensor([[2.0, 0.0]]))) ** 2).sum()
        loss.backward()
        opt.step()
        return online.weight.tolist(), target.weight.tolist(), target.weight.requires_grad
    ours, theirs = both(run)
    assert np.allclose(ours[0], theirs[0]) and ours[1:] == theirs[1:]
