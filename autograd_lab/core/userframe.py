"""Where the user's code is: the stack level at which a warning names the user's line."""
import sys


def user_level():
    """The stacklevel of a warning that names the user's line, the first outside this package."""
    frame, level = sys._getframe(1), 1
    while frame is not None and _ours(frame.f_globals.get("__name__", "")):
        frame, level = frame.f_back, level + 1
    return level


def _ours(module):
    return module == "autograd_lab" or module.startswith("autograd_lab.")


