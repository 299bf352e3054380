import tensorflow as tf

features = tf.ones((64, 784))
weight = tf.ones((28, 10))
logits = tf.matmul(features, weight)
