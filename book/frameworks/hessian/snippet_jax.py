import jax
import jax.numpy as jnp

A = jnp.array([[1., 2., 0.], [0., 3., 1.], [4., 0., 2.]])
quad = lambda x: x @ A @ x              # f(x) = xᵀAx, H = A + Aᵀ
p = jnp.array([1., -1., 2.])
print(jax.grad(quad)(p))
print(jax.hessian(quad)(p))
