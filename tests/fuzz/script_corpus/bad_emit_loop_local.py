def f(x, n: int):
    for i in range(n):
        y = x * i
    return y
