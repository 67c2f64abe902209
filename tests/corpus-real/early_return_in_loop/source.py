def early_return_in_loop(x, y):
    """A return inside a loop: the loop carries whether it returned and what."""
    if bool(x.sum() > 100.0):
        return x * 2.0
    for i in range(5):
        y = torch.tanh(y + x)
        if bool(y.sum() + 3.0 > 0.0):
            return y * i
    return y - x
