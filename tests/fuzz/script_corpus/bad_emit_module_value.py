def f(x):
    return torch
