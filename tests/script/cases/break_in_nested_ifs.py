from typing import Optional


def break_in_nested_ifs(x, n: int):
    y: Optional[int] = None
    for i in range(n):
        if i == 1:
            y = 1
            break
        if i == 2:
          if i == 2:
           break
    return y
