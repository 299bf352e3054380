import jax
import jax.numpy as jnp
from jax.ad_checkpoint import print_saved_residuals

def block(t):
    return jnp.exp(jnp.sin(t) * t)

x = jnp.array([0.5, 1.0, 2.0])
loss = lambda t: jax.checkpoint(block)(t).sum()   # kept: only t
print(jax.grad(loss)(x))
print_saved_residuals(loss, x)
