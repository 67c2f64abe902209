def loop_break_continue(x):
    """break and continue in a range loop and a while loop (issue 12): the loops PyTorch's
    frontend rewrites with exit flags, the counted one into a while loop with a counter."""
    for i in range(6):
        if i == 4:
            break
        if i == 1:
            continue
        x = x * 1.5 + i
    k = 0
    while k < 10:
        k += 1
        if k % 3 == 0:
            continue
        if bool(x.sum() > 110.0):
            break
        x = x + 0.25 * k
    return x, x * k
