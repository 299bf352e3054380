import tensorflow as tf

A = tf.constant([[1., 2., 0.], [0., 3., 1.], [4., 0., 2.]])
p = tf.Variable([1., -1., 2.])
with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        f = tf.tensordot(p, tf.linalg.matvec(A, p), 1)   # xᵀAx
    g = inner.gradient(f, p)            # recorded by the outer tape
print(g)
print(outer.jacobian(g, p))             # H = A + Aᵀ
