def dropout_train_small(x):
    return F.dropout(x, 0.3, True) * 2
