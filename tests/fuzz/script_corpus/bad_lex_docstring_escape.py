def f(x):
    '''a
    \q'''
    return x
