def vector_norms(a, n, e, s):
    """torch.linalg.vector_norm for ord 2, 1, inf, -inf, 0, 3, 0.5, 1.5, -1 over every element
    and along dims (negative, keepdim, a dtype), with PyTorch 1.13's norm_backward: a's first
    row ties for the largest magnitude (inf's gradient shared), its last row is zeros (a zero
    2-norm's gradient is 0; ord below 1 skips the zeros); n holds NaN and inf, e is empty
    along dim 1, s is 0-dim."""
    inf = float("inf")
    return (torch.linalg.vector_norm(a), torch.linalg.vector_norm(a, 1, [1]),
            torch.linalg.vector_norm(a, inf, [1], True), torch.linalg.vector_norm(a, -inf, -1),
            torch.linalg.vector_norm(a, 0), torch.linalg.vector_norm(a, 3.0, [0, 1]),
            torch.linalg.vector_norm(a, 0.5, 1), torch.linalg.vector_norm(a, 1.5, 1),
            torch.linalg.vector_norm(a, -1.0, 0), torch.linalg.vector_norm(a, 2.5, [-1]),
            torch.linalg.vector_norm(a, 2, [0], dtype=torch.float64),
            torch.linalg.vector_norm(n, 2, [1]), torch.linalg.vector_norm(n, inf, [0]),
            torch.linalg.vector_norm(e), torch.linalg.vector_norm(e, 2, [1]),
            torch.linalg.vector_norm(s, 1), torch.linalg.vector_norm(s, 2, [0], True))
