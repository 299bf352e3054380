import jax
import jax.numpy as jnp

def f(x):
    return jnp.sum(x if x > 0 else -x)

jax.grad(f)(jnp.array([-1.0, 2.0, 3.0]))
