"""A torch name autograd_lab does not have says so (autograd_lab/not_here.py): reading it
raises NotInAutogradLab, an AttributeError (hasattr says no) that is also a
NotImplementedError, naming the torch name; importing it raises the same words as an
ImportError; a typo keeps Python's usual AttributeError, with a "Did you mean"."""
import pytest

import autograd_lab as al
import autograd_lab.func  # noqa: F401  (al.func loads when first asked for)
from autograd_lab.not_here import CannotImportFromAutogradLab, NotInAutogradLab, torch_names

MODULES = {"torch": al, "torch.nn": al.nn, "torch.nn.functional": al.nn.functional,
           "torch.nn.init": al.nn.init, "torch.optim": al.optim, "torch.utils": al.utils,
           "torch.utils.data": al.utils.data, "torch.func": al.func, "torch.autograd": al.autograd,
           "torch.autograd.functional": al.autograd.functional,
           "torch.autograd.forward_ad": al.autograd.forward_ad, "torch.autograd.graph": al.autograd.graph,
           "torch.cuda": al.cuda, "torch.backends": al.backends, "torch.backends.cudnn": al.backends.cudnn,
           "torch.backends.mps": al.backends.mps, "torch.backends.cuda": al.backends.cuda,
           "torch.amp": al.amp, "torch.accelerator": al.accelerator,
           "torch.distributions": al.distributions, "torch.optim.lr_scheduler": al.optim.lr_scheduler,
           "torch.nn.utils": al.nn.utils, "torch.nn.utils.rnn": al.nn.utils.rnn, "torch.random": al.random}


def test_every_namespace_the_names_file_holds_is_checked_here():
    assert set(MODULES) == set(torch_names()[0])


def _instances():
    p = al.zeros(1, requires_grad=True)
    return {"torch.Tensor": al.ones(2, 2), "torch.nn.Module": al.nn.Linear(2, 2),
            "torch.optim.Optimizer": al.optim.SGD([p], lr=0.1),
            "torch.utils.data.DataLoader": al.utils.data.DataLoader([1, 2])}


def _lacking(owner, names):
    """The names ``owner`` does not have (a property that raises for this tensor, as
    ``x.mT`` of a vector, is had)."""
    def has(n):
        try:
            getattr(owner, n)
        except AttributeError:
            return False
        except Exception:  # noqa: BLE001
            pass
        return True
    return [n for n in sorted(names) if not has(n)]


@pytest.mark.parametrize("namespace", list(MODULES))
def test_every_torch_name_a_module_lacks_says_it_is_not_implemented(namespace):
    module, modules = MODULES[namespace], torch_names()[0]
    lacking = _lacking(module, modules[namespace])
    for name in lacking:
        with pytest.raises(NotInAutogradLab, match=rf"^{namespace}\.{name} is not implemented in "
                                                  r"autograd_lab \("):
            getattr(module, name)
    assert len(lacking) < len(modules[namespace]) or namespace in ("torch.utils",)


@pytest.mark.parametrize("cls", ["torch.Tensor", "torch.nn.Module", "torch.optim.Optimizer",
                                 "torch.utils.data.DataLoader"])
def test_every_torch_member_an_object_lacks_says_it_is_not_implemented(cls):
    obj, members = _instances()[cls], torch_names()[1][cls]
    lacking = _lacking(obj, members)
    assert lacking and len(lacking) < len(members)
    for name in lacking:
        with pytest.raises(NotInAutogradLab, match=rf"^{cls}\.{name} is not implemented in autograd_lab"):
            getattr(obj, name)


def test_the_error_is_an_attribute_error_and_a_not_implemented_error_with_its_words():
    lacking = _lacking(al.nn, torch_names()[0]["torch.nn"])[0]
    assert not hasattr(al.nn, lacking) and getattr(al.nn, lacking, "no") == "no"
    with pytest.raises(NotImplementedError) as info:
        getattr(al.nn, lacking)
    have = len([n for n in dir(al.nn) if n in torch_names()[0]["torch.nn"]])
    assert str(info.value) == (f"torch.nn.{lacking} is not implemented in autograd_lab (al.nn has "
                               f"{have} of torch.nn's {len(torch_names()[0]['torch.nn'])} public "
                               "names: dir(al.nn) lists them)")


def test_importing_a_name_torch_has_gives_the_same_words_as_an_import_error():
    lacking = _lacking(al.nn, torch_names()[0]["torch.nn"])[0]
    with pytest.raises(CannotImportFromAutogradLab) as info:
        exec(f"from autograd_lab.nn import {lacking}", {})
    assert isinstance(info.value, (ImportError, NotImplementedError))
    assert str(info.value).startswith(f"cannot import name '{lacking}' from 'autograd_lab.nn': "
                                      f"torch.nn.{lacking} is not implemented in autograd_lab (")
    with pytest.raises(ImportError, match="cannot import name 'Lnear'") as typo:
        exec("from autograd_lab.nn import Lnear", {})
    assert type(typo.value) is ImportError


def test_work_for_other_hardware_says_so():
    for owner, name, text in [(al.nn, "parallel", "several GPUs"),
                              (al.cuda, "Event", "GPUs"), (al, "distributed", "training on several machines")]:
        with pytest.raises(NotInAutogradLab, match=rf"\(it is for {text}; autograd_lab computes "
                                                   r"with NumPy on one CPU\)$"):
            getattr(owner, name)


def test_logging_for_tensorboard_says_what_to_do_instead():
    with pytest.raises(NotInAutogradLab, match=r"^torch.utils.tensorboard is not implemented in autograd_lab "
                                               r"\(it writes logs for TensorBoard, a program autograd_lab "
                                               r"does not use; print the numbers, or plot them with "
                                               r"matplotlib\)$"):
        al.utils.tensorboard


@pytest.mark.parametrize("owner, name, error", [
    (al, "tensr", "module 'autograd_lab' has no attribute 'tensr'. Did you mean: 'tensor'?"),
    (al.nn, "Lnear", "module 'autograd_lab.nn' has no attribute 'Lnear'. Did you mean: 'Linear'?"),
    (al.nn.functional, "rleu", "module 'autograd_lab.nn.functional' has no attribute 'rleu'. "
                               "Did you mean: 'relu'?"),
    (al.nn.Linear(2, 3), "wieght", "'Linear' object has no attribute 'wieght'. Did you mean: 'weight'?"),
    (al.nn, "xyzzy", "module 'autograd_lab.nn' has no attribute 'xyzzy'"),
], ids=["al", "nn", "functional", "module", "no close name"])
def test_a_typo_keeps_pythons_attribute_error_with_a_close_name(owner, name, error):
    with pytest.raises(AttributeError) as info:
        getattr(owner, name)
    assert type(info.value) is AttributeError and str(info.value) == error


def test_a_typo_on_a_tensor_is_pythons_own_attribute_error_whose_printout_has_the_hint():
    """(Tensor gets no __getattr__, which would slow every tensor down: Python's own error,
    and Python's own printer adds the close name; Jupyter prints no such hints.)"""
    import subprocess
    import sys
    script = "import autograd_lab as al\nal.ones(2).sizee\n"
    printed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True).stderr
    assert printed.strip().splitlines()[-1] == ("AttributeError: 'Tensor' object has no attribute "
                                                "'sizee'. Did you mean: 'size'?")
    script = "import autograd_lab as al\nal.nn.Lnear\n"
    printed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True).stderr
    assert printed.strip().splitlines()[-1] == ("AttributeError: module 'autograd_lab.nn' has no "
                                                "attribute 'Lnear'. Did you mean: 'Linear'?")


def test_torchs_tensor_names_it_lacks_are_left_out_of_dir():
    lacking = _lacking(al.ones(2, 2), torch_names()[1]["torch.Tensor"])
    assert lacking and not set(lacking) & set(dir(al.Tensor)) and not set(lacking) & set(dir(al.ones(2)))
