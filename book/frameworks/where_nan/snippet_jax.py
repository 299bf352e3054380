import jax
import jax.numpy as jnp

x = jnp.array([-1., 0., 1., 4.])
f = lambda x: jnp.where(x > 0, jnp.sqrt(x), 0.)
print(f(x))
print(jax.grad(lambda x: f(x).sum())(x))
