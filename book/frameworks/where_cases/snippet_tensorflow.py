import tensorflow as tf

x = tf.Variable([1., 2., 3., 4.])
y = tf.Variable([-1., -2., 3., 4.])
v = tf.constant([10., 20., 30., 40.])   # the seed dL/dz

with tf.GradientTape(persistent=True) as tape:
    z1 = tf.where(x > 2, 1., 0.)        # case 1: two constants
    z2 = tf.where(x > 2, x, 0.)         # case 2: one branch is x
    z3 = tf.where(x > 2, x, y)          # case 3: both are variables
print("case 1:", tape.gradient(z1, x))
print("case 2:", tape.gradient(z2, x, output_gradients=v).numpy())
gx, gy = tape.gradient(z3, [x, y], output_gradients=v)
print("case 3:", gx.numpy(), gy.numpy())
