def f(x):
    for i in range(3):
        break
    return x
