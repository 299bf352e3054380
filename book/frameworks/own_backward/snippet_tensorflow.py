import tensorflow as tf


@tf.custom_gradient
def cube(x):
    def grad(v):                    # v: the seed arriving at y
        return v * 3 * x ** 2
    return x ** 3, grad


x = tf.Variable([1., 2., -1.])
with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        y = tf.reduce_sum(cube(x))
    g = inner.gradient(y, x)
h = outer.gradient(g, x)
print(g.numpy())
print(h.numpy())
