import torch.nn.functional as F


def factories_kw(x, t):
    z = torch.zeros(3, 4, dtype=torch.float64)
    o = torch.ones(2, dtype=torch.float32)
    loss = F.cross_entropy(x, t)
    return loss + z.sum() + o.sum()
