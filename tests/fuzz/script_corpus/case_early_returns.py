# return before the end of a function: in an if, in an elif after a raise, inside a range
# loop and a while loop; the rest of the function runs only when no return was taken.
def early_returns(x: Tensor, n: int):
    if n > 20:
        return x + 1
    elif n < 0:
        raise ValueError("negative n")
    for i in range(n):
        if bool(x.sum() > 5.0):
            return x - i
        x = x * 2
    k = n
    while k > 0:
        k -= 1
        if k == 3:
            y = x + k
            return y
    return x
