def f(x):
    raise ValueError("a\qb")
