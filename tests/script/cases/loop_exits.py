# break and continue in for-range, range(a, b), while and for-over-list loops, as PyTorch
# lowers them: a flag carried by the loop (prim::LoopContinuation made into If outputs), the
# rest of the body moved into the branch that did not exit, and counted loops whose condition
# changed made into while loops with their own counter.
def loop_exits(x: Tensor, n: int):
    for i in range(n):
        if i > 3:
            break
        x = x + 1
    for j in range(2, n):
        if j == 4:
            continue
        x = x * 2
    k = 0
    while k < n:
        k += 1
        if k == 2:
            continue
        if bool(x.sum() > 10.0):
            break
        x = x - 1
    for t in [x, x * 2]:
        if bool(t.sum() > 100.0):
            break
        x = x + t
    return x, k
