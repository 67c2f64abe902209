def f(x):
    for i in range(1, 3, 1, 2):
        x = x + 1
    return x
