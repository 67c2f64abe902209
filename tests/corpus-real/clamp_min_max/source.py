def clamp_min_max(x):
    return (x.clamp_min(-0.5), x.clamp_max(1.0) * 2.0, torch.clamp_min(x, float("nan")),
            torch.clamp_max(x, float("inf")))
