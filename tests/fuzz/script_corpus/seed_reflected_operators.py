def f(x: Tensor, n: int, s: float):
    a = 1 - x
    b = 2 * x + 0.5 * x
    c = 3 + x
    d = 1.5 / x
    e = n - x * s
    g = (s - x) / (n + x)
    return a, b, c, d, e, g
