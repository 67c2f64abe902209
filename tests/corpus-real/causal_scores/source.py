def causal_scores(q, k):
    """Attention scores under a causal mask (tril of ones) with the upper triangle halved
    (triu above the diagonal), and each row's argmin."""
    s = torch.matmul(q, k.t())
    s = s * torch.tril(torch.ones_like(s)) + torch.triu(s, 1) * 0.5
    return torch.softmax(s, 1), s.argmin(1)
