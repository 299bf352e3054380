import tensorflow as tf

x = tf.constant([[0.1, 0.2, 0.3], [0.4, 0.6, 0.8]])
y_true = tf.constant([[0.0, 1.0]])
W = tf.Variable([[0.1257, -0.1321, 0.6404]])
b = tf.Variable([[0.1049, -0.5357]])
with tf.GradientTape(persistent=True) as tape:
    y_pred = tf.sigmoid(tf.matmul(W, x, transpose_b=True) + b)
    losses = (y_true - y_pred) ** 2    # shape (1, 2)

seed = tf.constant([[0.5, 0.5]])
print("W.grad =", tape.gradient(losses, W, output_gradients=seed))
flat = tf.constant([0.5, 0.5])         # the post's flat seed
print("flat:", tape.gradient(losses, W, output_gradients=flat))
