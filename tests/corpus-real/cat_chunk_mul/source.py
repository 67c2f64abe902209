def cat_chunk_mul(x, y):
    """cat of two tensors cut back in two by chunk, inside one DifferentiableGraph: each
    tensor's gradient comes back through the list as a piece of split_with_sizes."""
    c = torch.cat([torch.tanh(x), y * 2.0], 1)
    a, b = c.chunk(2, 1)
    return a * b * torch.sigmoid(c).sum(1, keepdim=True)
