def f(x):
    for i in range(2):
        def g(y):
            continue
        x = x + 1
    return x
