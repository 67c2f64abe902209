def relu_in_graph_nan(x, y):
    """relu inside a DifferentiableGraph: its symbolic formula g * (result > 0) gives 0 at
    NaN."""
    return torch.relu(x * y + x) * y + y
