import jax
import jax.numpy as jnp
from jax.ad_checkpoint import print_saved_residuals

def block(x):
    return jnp.exp(jnp.sin(x) * x)

x = jnp.array([0.5, 1.0, 2.0])
loss = lambda x: jax.checkpoint(block)(x).sum()   # kept: only x
print(jax.grad(loss)(x))
print_saved_residuals(loss, x)
