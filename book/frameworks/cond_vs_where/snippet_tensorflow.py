import tensorflow as tf

w = tf.Variable(2.)
a = tf.Variable(3.)                     # used only when w > 1
b = tf.Variable(5.)                     # used only when w <= 1

with tf.GradientTape(persistent=True) as tape:
    by_cond = tf.cond(w > 1, lambda: a * w, lambda: b * w)
    by_where = tf.where(w > 1, a * w, b * w)
for name, out in (("cond: ", by_cond), ("where:", by_where)):
    grads = tape.gradient(out, [w, a, b])
    print(name, *(g if g is None else g.numpy() for g in grads))
