import jax
import jax.numpy as jnp

x = jnp.ones(5)
jax.jvp(jnp.cos, (x,), (jnp.ones(4),))
