"""nbval's settings for the book's notebooks, so that both `pytest` and
`pytest book/02_masks_where_select_cond.ipynb` check notebooks the same way: every
notebook runs in this environment's kernel (--nbval-current-env), its stored outputs
are compared after the sanitizer tests/sanitize.cfg (memory addresses, figure sizes),
and a cell stuck for 120 s fails.  Environments without nbval (such as one kept only
to compare with PyTorch) skip all of this.
"""
from pathlib import Path

SANITIZE = Path(__file__).resolve().parent.parent / "tests" / "sanitize.cfg"


def pytest_configure(config):
    opt = config.option
    if not config.pluginmanager.hasplugin("nbval"):
        return
    if not getattr(opt, "nbval_lax", False):
        opt.nbval = True
    if not opt.nbval_kernel_name:
        opt.nbval_current_env = True
    if not opt.nbval_sanitize_with:
        opt.nbval_sanitize_with = str(SANITIZE)
    if str(opt.nbval_cell_timeout) == "2000":   # nbval's default; a stuck cell fails sooner
        opt.nbval_cell_timeout = 120
