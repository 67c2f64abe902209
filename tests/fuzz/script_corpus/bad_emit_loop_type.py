def f(x, n: int):
    y = 1
    for i in range(n):
        y = x
    return y
