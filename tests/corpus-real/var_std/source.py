def var_std(x):
    return x.var(1, keepdim=True) * x + x.std() + x.var(unbiased=False) + x.std([0], False)
