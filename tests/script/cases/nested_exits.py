# break in an inner loop leaves only that loop; continue in the outer loop after it; values
# bound before a break are the ones the loop carries out.
def nested_exits(x: Tensor, n: int):
    total = 0
    for i in range(n):
        for j in range(n):
            total += j
            if j > i:
                y = x * j
                break
            x = x + 1
        if total > 10:
            continue
        x = x + total
    while True:
        total -= 3
        if total < 0:
            break
    return x, total
