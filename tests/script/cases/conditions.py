from typing import Optional


def conditions(x, flag: bool, limit: Optional[int], alpha: float = 0.5):
    y = x.sigmoid() if flag else x.tanh()
    assert flag or alpha > 0.0, "alpha must be positive"
    if limit is None:
        raise ValueError("need a limit")
    if flag and alpha < 1.0:
        y = torch.sub(y, x, alpha=2)
    return torch.relu(y) * -alpha
