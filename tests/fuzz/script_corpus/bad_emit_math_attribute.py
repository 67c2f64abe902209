def f(x):
    return x * math.golden
