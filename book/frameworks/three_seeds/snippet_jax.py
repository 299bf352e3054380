import jax
import jax.numpy as jnp

x = jnp.array([[2., 1.]])
M = jnp.array([[1., 2.], [3., 4.]])
y, pullback = jax.vjp(lambda x: x @ M, x)   # one forward, many seeds
print("y =", y)
for seed in ([[1., 0.]], [[0., 1.]], [[1., 1.]]):
    (g,) = pullback(jnp.array(seed))
    print("seed", seed, "->", g)
