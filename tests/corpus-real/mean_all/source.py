def mean_all(x):
    return x.mean() * x
