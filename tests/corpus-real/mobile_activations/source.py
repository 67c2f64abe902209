def mobile_activations(x, w):
    """MobileNet's activations: relu6 and hardswish (F.* calls, inlined), NaN-free inputs that
    cross every branch (below -3, between, above 3 and 6)."""
    return F.hardswish(x * 2.0) * F.relu6(x * 3.0 + w)
