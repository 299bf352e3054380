import tensorflow as tf

x = tf.Variable([1., 2., 3., 4.])
with tf.GradientTape(persistent=True) as tape:
    y = tf.tensordot(x, x, axes=0)      # the outer product, (4, 4)
print(tape.gradient(y, x, output_gradients=tf.ones_like(y)))
print(tape.gradient(y, x, output_gradients=tf.ones_like(x)))
