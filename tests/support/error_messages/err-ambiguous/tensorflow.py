import tensorflow as tf

x = tf.constant([-1.0, 2.0, 3.0])
y = x if x > 0 else -x
