import jax
import jax.numpy as jnp

x = jnp.ones((4, 5))
top, pullback = jax.vjp(lambda x: x[:2] * 2, x)
pullback(jnp.ones((4, 5)))
