def cross_entropy_smoothed(x, t, w, x1, t1):
    """cross_entropy with label_smoothing in every reduction, with class weights, an ignored
    target, [N, C, d] scores and a 1-D one."""
    return (F.cross_entropy(x, t, label_smoothing=0.1),
            F.cross_entropy(x, t, w, ignore_index=2, label_smoothing=0.25, reduction="none"),
            F.cross_entropy(x, t, w, ignore_index=2, label_smoothing=0.25),
            F.cross_entropy(x, t, label_smoothing=0.3, reduction="sum"),
            F.cross_entropy(x.unsqueeze(2) * x.unsqueeze(2), t.unsqueeze(1), label_smoothing=0.2),
            F.cross_entropy(x1, t1, label_smoothing=0.1))
