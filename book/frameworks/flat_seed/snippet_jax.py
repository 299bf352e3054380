import jax
import jax.numpy as jnp

x = jnp.array([[0.1, 0.2, 0.3], [0.4, 0.6, 0.8]])
y_true = jnp.array([[0.0, 1.0]])
W = jnp.array([[0.1257, -0.1321, 0.6404]])
b = jnp.array([[0.1049, -0.5357]])


def layer_losses(W):                   # shape (1, 2)
    return (y_true - jax.nn.sigmoid(W @ x.T + b)) ** 2


losses, pullback = jax.vjp(layer_losses, W)
print("W.grad =", pullback(jnp.array([[0.5, 0.5]]))[0])
pullback(jnp.array([0.5, 0.5]))        # the post's flat seed
