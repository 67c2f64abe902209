def f(x):
    # ok Ã©
    return x ÿ
