import tensorflow as tf

x = tf.Variable([-1., 0., 1., 4.])
with tf.GradientTape() as tape:
    z = tf.where(x > 0, tf.sqrt(x), 0.)
    L = tf.reduce_sum(z)
print(z)
print(tape.gradient(L, x))
