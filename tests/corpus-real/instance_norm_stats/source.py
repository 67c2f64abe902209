def instance_norm_stats(x, w, b, rm, rv, x1):
    """InstanceNorm2d as models call it: affine, tracking running statistics (updated in place
    and returned after), and plain on a 1-D signal."""
    y = F.instance_norm(x, rm, rv, w, b, True, 0.2)
    return y, rm * 1.0, rv * 1.0, F.instance_norm(x1)
