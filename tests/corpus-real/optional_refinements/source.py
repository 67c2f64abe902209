def optional_refinements(x, m: Optional[torch.Tensor], b: Optional[torch.Tensor]):
    """Refinement inside 'and', 'or' and a conditional expression (PyTorch refines there too)."""
    if m is not None and m.size(0) > 1:
        x = x + m
    y = b if b is not None else x
    if b is None or b.sum() > 0:
        y = y * 2.0
    return x * y
