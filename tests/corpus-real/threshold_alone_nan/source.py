def threshold_alone_nan(x):
    """F.threshold outside any DifferentiableGraph: autograd's threshold_backward passes the
    gradient at NaN."""
    return F.threshold(x, 0.5, -2.0)
