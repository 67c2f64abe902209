def adaptive_pool1d(x, n, b):
    """F.adaptive_avg_pool1d and F.adaptive_max_pool1d: windows that overlap (7 -> 4), that
    repeat elements (3 -> 5), one window (PyTorch's mean), return_indices; n holds NaN, inf, a
    row of -inf and tied maxima; b has an empty batch."""
    m, i = F.adaptive_max_pool1d(n, 3, True)
    return (F.adaptive_avg_pool1d(x, 4), F.adaptive_avg_pool1d(x, 1),
            F.adaptive_avg_pool1d(x[:, :, :3], 5), F.adaptive_max_pool1d(x, 4),
            F.adaptive_max_pool1d(x[:, :, :3], 5), m, i, F.adaptive_avg_pool1d(n, 2),
            F.adaptive_max_pool1d(b, 2), F.adaptive_avg_pool1d(b, 3))
