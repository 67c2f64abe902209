def pool1d_windows(x, n, b):
    """F.max_pool1d and F.avg_pool1d (and their aten forms) on [N, C, W] and [C, W]: ceil_mode,
    padding, dilation, stride None (an empty list), count_include_pad both ways,
    return_indices; n holds NaN, inf, a row of -inf and tied maxima; b has an empty batch."""
    m, i = F.max_pool1d(n, 2, 1, 1, return_indices=True)
    return (F.max_pool1d(x, 3, 2, 1, ceil_mode=True), F.max_pool1d(x, 2, dilation=2),
            torch.max_pool1d(n, [3], [2], [1], [1], False), m, i,
            F.avg_pool1d(x, 3, 2, 1, True, False), F.avg_pool1d(n, 2),
            torch.avg_pool1d(x, [4], [3], [2], True, True), F.max_pool1d(b, 2),
            F.avg_pool1d(b, 3, 1, 1))
