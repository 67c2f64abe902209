def f(x, n: int):
    y = x
    for i in range(n):
        if i == 2:
            y = 1
            break
        y = y + 1
    return y
