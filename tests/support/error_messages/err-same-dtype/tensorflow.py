import numpy as np
import tensorflow as tf

data = tf.constant(np.random.rand(32, 10))
weight = tf.ones((10, 1))
prediction = tf.matmul(data, weight)
