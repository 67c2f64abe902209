def f(x):
    for i in range(0, 2.5):
        x = x + 1
    return x
