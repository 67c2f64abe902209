def interpolate_forms(x):
    """F.interpolate as models call it: by a scale factor (nearest), to a size pair (bilinear),
    to one size for both dims, by a scale pair with align_corners, and recomputing the size."""
    a = F.interpolate(x, scale_factor=2.0)
    b = F.interpolate(x, size=(5, 7), mode='bilinear', align_corners=False)
    c = F.interpolate(x, size=6)
    d = F.interpolate(x, scale_factor=(1.5, 0.75), mode='bilinear', align_corners=True)
    e = F.interpolate(x, scale_factor=1.7, mode='bilinear', recompute_scale_factor=True)
    return a, b * 2.0, c, d, e
