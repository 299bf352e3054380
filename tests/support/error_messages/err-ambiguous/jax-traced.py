import jax

@jax.jit
def f(x):
    return x if x > 0 else -x

jax.grad(f)(-1.5)
