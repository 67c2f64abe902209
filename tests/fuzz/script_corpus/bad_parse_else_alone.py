def f(x):
    else:
        return x
