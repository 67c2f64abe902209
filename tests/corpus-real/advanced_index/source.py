def advanced_index(x, i, j, m, e):
    """x[idx] as TorchScript prints it (aten::index of a Tensor?[]): rows with a repeated and a
    negative index, columns after a None, two index tensors broadcast together, a bool mask,
    an empty index; x holds NaN and inf, whose gradient is still 1 where they are read."""
    a = x[i] * 2.0
    b = x[:, i].sum(0)
    c = x[j, i]
    d = torch.tanh(x[m])
    return a, b, c, d, x[e] + 1.0
