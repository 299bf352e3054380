import jax
import jax.numpy as jnp
from jax import lax

# f(x) = sqrt(x) for x > 0, -x otherwise; at x = -1, df/dx = -1
roots = {"sqrt": jnp.sqrt, "** 0.5": lambda x: x ** 0.5}
for name, root in roots.items():
    by_where = lambda x: jnp.where(x > 0, root(x), -x)
    by_cond = lambda x: lax.cond(x > 0, root, lambda x: -x, x)
    print(f"{name:6}  where: {jax.grad(by_where)(-1.)}"
          f"  cond: {jax.grad(by_cond)(-1.)}")
