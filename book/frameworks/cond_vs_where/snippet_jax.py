import jax
import jax.numpy as jnp
from jax import lax


def by_cond(w, a, b):
    return lax.cond(w > 1, lambda w: a * w, lambda w: b * w, w)


def by_where(w, a, b):
    return jnp.where(w > 1, a * w, b * w)


args = (2., 3., 5.)                     # w, a (if w > 1), b (else)
print("cond: ", *jax.grad(by_cond, argnums=(0, 1, 2))(*args))
print("where:", *jax.grad(by_where, argnums=(0, 1, 2))(*args))
