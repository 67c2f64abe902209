def dropout_train_double(x):
    return torch.sigmoid(F.dropout(x, 0.6, True)) * x
