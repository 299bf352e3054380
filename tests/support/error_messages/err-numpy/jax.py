import jax
import jax.numpy as jnp
import numpy as np

def loss(w):
    return np.sum(np.asarray(w) ** 2)

jax.grad(loss)(jnp.ones(10))
