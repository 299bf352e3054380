import jax
import jax.numpy as jnp

x = jnp.array([1., 2., 3., 4.])
y = jnp.array([-1., -2., 3., 4.])
v = jnp.array([10., 20., 30., 40.])     # the seed dL/dz

case1 = lambda x: jnp.where(x > 2, 1., 0.)   # two constants
case2 = lambda x: jnp.where(x > 2, x, 0.)    # one branch is x
case3 = lambda x, y: jnp.where(x > 2, x, y)  # both are arrays
print("case 1:", *jax.vjp(case1, x)[1](v))
print("case 2:", *jax.vjp(case2, x)[1](v))
print("case 3:", *jax.vjp(case3, x, y)[1](v))
