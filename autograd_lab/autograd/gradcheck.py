"""Placeholder replaced by the gradient checks (issue 4)."""


class GradcheckError(RuntimeError):
    pass


def gradcheck(*a, **k):
    raise NotImplementedError


gradgradcheck = gradcheck
