import jax.numpy as jnp

images = jnp.ones((16, 3, 32, 32))
mean = jnp.array([0.5, 0.5, 0.5])
normalized = images - mean
