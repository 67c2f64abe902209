def f(x: Tensor, y: Tensor, n: int):
    a = x // y
    b = x // 2.0
    c = x % y + x % 3
    d = (x * n) // n
    return a, b, c, d, n // 2
