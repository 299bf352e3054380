import jax
import jax.numpy as jnp

x = jnp.array([[0.1, 0.2, 0.3], [0.4, 0.6, 0.8]])
y_true = jnp.array([[0.0, 1.0]])
W = jnp.array([[0.1257, -0.1321, 0.6404]])
b = jnp.array([[0.1049, -0.5357]])


def layer_losses(W):                    # shape (1, 2)
    return (y_true - jax.nn.sigmoid(W @ x.T + b)) ** 2


losses, pullback = jax.vjp(layer_losses, W)
for seed in ([[1., 0.]], [[0., 1.]]):   # one-hot: one row each
    print("row", pullback(jnp.array(seed))[0])
J = jax.jacrev(layer_losses)(W)         # shape (1, 2, 1, 3)
print(J.reshape(2, 3))
