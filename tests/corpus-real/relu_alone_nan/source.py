def relu_alone_nan(x):
    """relu outside any DifferentiableGraph: PyTorch's autograd formula (threshold_backward)
    passes the gradient at NaN."""
    return F.relu(x)
