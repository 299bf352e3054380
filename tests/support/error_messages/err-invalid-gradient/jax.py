import jax
import jax.numpy as jnp

@jax.custom_vjp
def row_mean(x):
    return x.mean(axis=1)

row_mean.defvjp(lambda x: (x.mean(axis=1), None), lambda res, g: (g,))
jax.grad(lambda x: row_mean(x).sum())(jnp.ones((4, 6)))
