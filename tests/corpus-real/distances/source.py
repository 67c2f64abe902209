def distances(x, y, w, z):
    """F.cosine_similarity and F.pairwise_distance: dims 1, 0 and -1, broadcasting (along dim
    too), a zero row and a row whose norm is below eps (PyTorch clamps it in place under
    no_grad: its gradient passes as if unclamped), a NaN, p 2, 1, inf and 3, keepdim; z is an
    empty batch."""
    return (F.cosine_similarity(x, y), F.cosine_similarity(x, w, 0),
            F.cosine_similarity(x, y[:1], -1), F.cosine_similarity(x, w[:, :1], 1),
            F.pairwise_distance(x, y), F.pairwise_distance(x, w, 1.0, 1e-6, True),
            F.pairwise_distance(x, y, float("inf")), F.pairwise_distance(x, y, 3.0),
            F.cosine_similarity(z, z), F.pairwise_distance(z, z))
