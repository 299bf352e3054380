import jax
import jax.numpy as jnp


@jax.custom_vjp
def cube(x):
    return x ** 3


def cube_fwd(x):
    return x ** 3, x                # the residual: what backward keeps


def cube_bwd(x, v):                 # v: the output's cotangent (seed)
    return (v * 3 * x ** 2,)        # one per input, in a tuple


cube.defvjp(cube_fwd, cube_bwd)


@jax.custom_jvp                     # or a forward-mode rule instead
def cube_jvp(x):
    return x ** 3


@cube_jvp.defjvp
def _(primals, tangents):
    (x,), (u,) = primals, tangents
    return x ** 3, 3 * x ** 2 * u


x = jnp.array([1., 2., -1.])
for f in (cube, cube_jvp):
    g = jax.grad(lambda x: f(x).sum())
    print(g(x))
    print(jax.grad(lambda x: g(x).sum())(x))
