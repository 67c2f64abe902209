def control_flow(x, y, n: int):
    if n > 3:
        z = x + y
    elif n == 2:
        z = x * y
    else:
        z = x - y
        w = z * 2
    acc = y
    for i in range(n):
        z = z * x
        acc = acc + 1.5
    k = 0
    while k < n:
        k += 2
    return z, acc, k
