def index_select_rows(x, i):
    return torch.index_select(x, 0, i) * torch.index_select(x, 1, i[:3]).sum()
