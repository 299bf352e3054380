import tensorflow as tf

images = tf.ones((16, 3, 32, 32))
mean = tf.constant([0.5, 0.5, 0.5])
normalized = images - mean
