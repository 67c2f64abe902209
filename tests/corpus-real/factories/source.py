def factories(x):
    return (x + torch.zeros(3, 4) + torch.ones([3, 4]) * x + torch.full([3, 4], 2.5) * x,
            torch.ones([2, 3], dtype=torch.float64),
            torch.arange(4) * x, torch.arange(0, 8, 2, dtype=torch.float32) + x,
            torch.arange(1.0, 2.0, 0.25) * x, torch.full([2], 3), torch.arange(-3, 4, 3),
            torch.zeros_like(x, dtype=torch.float64) + torch.ones_like(x))
