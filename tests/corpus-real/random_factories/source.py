def random_factories(x):
    y = torch.randn([3, 4], dtype=torch.float64) + torch.rand([4], dtype=torch.float64)
    z = x * torch.rand([3, 4]) + torch.bernoulli(torch.sigmoid(x)) + torch.bernoulli(x, 0.25)
    return z * torch.randn([5, 7]).sum(), y * torch.randn([20], dtype=torch.float64).sum()
