import tensorflow as tf

counts = tf.constant([0, 2, 1, 1])
with tf.GradientTape() as tape:
    tape.watch(counts)
    total = tf.reduce_sum(counts * 3)
print(tape.gradient(total, counts))
