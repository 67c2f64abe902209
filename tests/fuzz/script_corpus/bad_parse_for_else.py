def f(x):
    for i in range(2):
        x = x + 1
    else:
        pass
    return x
