def early_return_not_taken(x, y):
    """The same function where no return inside the loop is taken."""
    for i in range(3):
        y = torch.tanh(y * 0.5 + x)
        if bool(y.sum() > 1000.0):
            return y * i
    return y - x
