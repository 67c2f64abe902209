# Docstrings and other triple-quoted strings: they span lines (line numbers after them must
# stay right) and, as statements, emit nothing.
def docstrings(x: Tensor, flag: bool):
    """Doubles x, or negates it.

    A docstring over several lines, with 'quotes' and "quotes" and a \
continued line."""
    if flag:
        '''a string statement in a block'''
        y = x * 2
    else:
        y = -x
    return y + 1
