def masked_attention_optional(q, k, v, mask: Optional[torch.Tensor]):
    """Attention with an Optional mask refined by `is not None`, ... and None in its
    subscripts, a number on the left of a tensor operator."""
    s = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / q.size(-1) ** 0.5)
    if mask is not None:
        s = s.masked_fill(mask[:, None, ...] == 0, -1e9)
    if mask is None:
        s = s - 0.5 * s.mean(-1, keepdim=True)
    p = s.softmax(-1)
    return torch.matmul(p, v)[..., :3], 1 - p[..., 0]
