import tensorflow as tf

# f(x) = sqrt(x) for x > 0, -x otherwise; at x = -1, df/dx = -1
x = tf.Variable(-1.)
roots = {"sqrt": tf.sqrt, "** 0.5": lambda x: x ** 0.5}
for name, root in roots.items():
    with tf.GradientTape(persistent=True) as tape:
        by_where = tf.where(x > 0, root(x), -x)
        by_cond = tf.cond(x > 0, lambda: root(x), lambda: -x)
    print(f"{name:6}  where: {tape.gradient(by_where, x).numpy()}"
          f"  cond: {tape.gradient(by_cond, x).numpy()}")
