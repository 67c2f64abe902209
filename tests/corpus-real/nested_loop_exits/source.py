def nested_loop_exits(x, w):
    """break leaves only the inner loop; continue skips the rest of the outer body."""
    out = x
    for i in range(3):
        for j in range(4):
            if j > i:
                break
            out = out + w * j
        if i == 1:
            continue
        out = torch.sigmoid(out)
    return out
