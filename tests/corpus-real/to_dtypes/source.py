def to_dtypes(x, y):
    d = x.to(torch.float64)
    return (d * 2.0, y.to(d) * d, x.to("cpu") * x, (x * 3).to(torch.int64),
            x.to(torch.float32, copy=True) * y)
