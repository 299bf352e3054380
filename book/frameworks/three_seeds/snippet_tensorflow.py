import tensorflow as tf

x = tf.Variable([[2., 1.]])
M = tf.constant([[1., 2.], [3., 4.]])
with tf.GradientTape(persistent=True) as tape:
    y = tf.matmul(x, M)
print("y =", y)
for seed in ([[1., 0.]], [[0., 1.]], [[1., 1.]]):
    g = tape.gradient(y, x, output_gradients=tf.constant(seed))
    print("seed", seed, "->", g)
