import tensorflow as tf

w = tf.Variable([0.9, 1.1])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.tanh(w) ** 2)
first = tape.gradient(loss, w)
second = tape.gradient(loss, w)
