def f(x, n: int):
    y = None
    for i in range(n):
        if i == 1:
            y = 1
            break
        if i == 2:
          if i == 2:
           break
    return y
