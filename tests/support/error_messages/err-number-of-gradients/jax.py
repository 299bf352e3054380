import jax
import jax.numpy as jnp

@jax.custom_vjp
def scaled_add(a, b, scale):
    return a + b * scale

scaled_add.defvjp(lambda a, b, s: (a + b * s, None), lambda res, g: (g, g))
jax.grad(lambda a: scaled_add(a, jnp.ones(3), 2.0).sum())(jnp.ones(3))
