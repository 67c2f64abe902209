def f(x, n: int):
    y = None
    for i in range(n):
        if i == 1:
            y = 1
            break
        if i == 2:
            y = 2.5
            break
    return y
