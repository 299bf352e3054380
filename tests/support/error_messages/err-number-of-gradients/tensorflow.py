import tensorflow as tf

@tf.custom_gradient
def scaled_add(a, b, scale):
    def backward(g):
        return g, g
    return a + b * scale, backward

a = tf.Variable(tf.ones(3))
with tf.GradientTape() as tape:
    total = tf.reduce_sum(scaled_add(a, tf.ones(3), tf.constant(2.0)))
tape.gradient(total, a)
