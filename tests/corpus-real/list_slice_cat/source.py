def list_slice_cat(x, y, z):
    xs = [x, torch.tanh(y), z * 2.0, x * y]
    head = xs[:2]
    tail = xs[-2:]
    parts = head + tail[::-1] + xs[::2]
    parts.insert(1, z)
    parts.extend(xs[1:3])
    last = parts.pop()
    parts.reverse()
    rest = list(parts[1:])
    return torch.cat(rest, 0) * 1.5, torch.stack(xs[1:], 1).sum(1) + last
