def f(x, n: int):
    y = 0
    for i in range(n):
        if i == 1:
            y = 1
            break
        if i == 3:
            break
    return y
