import jax.numpy as jnp

features = jnp.ones((64, 784))
weight = jnp.ones((28, 10))
logits = features @ weight
