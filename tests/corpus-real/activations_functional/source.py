def activations_functional(x, y):
    """F.* activations PyTorch 1.13 scripts as calls of torch.nn.functional: celu, selu,
    softsign, tanhshrink, rrelu in evaluation, normalize."""
    return (F.celu(x, 0.5), F.celu(x), F.selu(x), F.softsign(x) * 2.0, F.tanhshrink(x),
            F.rrelu(x, 0.1, 0.3), F.normalize(y, dim=1), F.normalize(y, p=1.0, dim=0) * 3.0)
