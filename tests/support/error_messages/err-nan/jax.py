import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)
x = jnp.array([0.0, 1.0, 9.0])
jax.grad(lambda x: jnp.where(x > 0, jnp.sqrt(x), 0.0).sum())(x)
