# returns in both branches of an if (the function always returns there), a return in a branch
# whose other branch raises, and statements after a return that never run.
def return_branches(x: Tensor, flag: bool, n: int):
    if flag:
        if n == 1:
            return x + 1, n
        else:
            raise ValueError("n must be 1")
    if n > 3:
        z = x * 2
        return z, n
        n = n + 1
    else:
        return x - 1, n - 1
