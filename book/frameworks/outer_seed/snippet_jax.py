import jax
import jax.numpy as jnp

x = jnp.array([1., 2., 3., 4.])
y, pullback = jax.vjp(lambda x: jnp.outer(x, x), x)   # y: (4, 4)
print(*pullback(jnp.ones_like(y)))
pullback(jnp.ones_like(x))              # a seed of x's shape
