def hardsigmoid(x):
    return F.hardsigmoid(x)
