#!/usr/bin/python3
"""Generates tests/conformance/data/*.json: PyTorch 1.13's answers for every pointwise op of
engine/ir/ops.def (a row with E(...)) on edge values, and the gradients of the differentiable
ones through broadcasting. Run with Debian's python3-torch: /usr/bin/python3 scripts/gen-conformance.py
The tests read the data; they never need torch."""
import itertools
import json
import math
import os
import re
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "conformance", "data")

DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64,
          "bool": torch.bool}
IR_TYPE = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}

# Edge values (before rounding to the dtype): NaN, ±inf, ±0, a denormal, huge, negative,
# x.5 ties, ordinary numbers.
EDGE = {
    "float32": [math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-40, -1e-40, 3e38, -3e38, 1e-7,
                -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.0, -1.0, 0.3, -0.7, 3.7, -7.0, 100.0, 2.0],
    "float64": [math.nan, math.inf, -math.inf, 0.0, -0.0, 5e-324, -1e-310, 1e300, -1e300,
                1e-15, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.0, -1.0, 0.3, -0.7, 3.7, -7.0,
                100.0, 2.0],
    "int64": [0, 1, -1, 2, -2, 3, -3, 7, -7, 100, -100, 2**40, -(2**40)],
    "bool": [False, True],
}
# A shorter list for the second and third operands of binary and ternary ops.
SHORT = {
    "float32": [math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-40, -2.5, 0.5, 1.5, 2.0, -3.0, 3e38],
    "float64": [math.nan, math.inf, -math.inf, 0.0, -0.0, 5e-324, -2.5, 0.5, 1.5, 2.0, -3.0, 1e300],
    "int64": [0, 1, -1, 2, -3, 7],
    "bool": [False, True],
}
THIRD = {"float32": [0.0, 0.5, 1.0, -2.0, math.nan], "float64": [0.0, 0.5, 1.0, -2.0, math.nan],
         "int64": [0, 1, -2], "bool": [False, True]}

# Scalar arguments per op (schema argument name -> values to try; each gives a case).
SCALARS = {
    "alpha": [1, 2, -0.5],
    "threshold": [0.5],
    "value": [-3.0],
    "min": [None, -1.0],
    "max": [None, 2],
    "weight": [0.25, 0.75],
    "exponent": [0.5, -0.5, 2, 3, -1, 2.5, 0],
    "other": [2.5, -2, 0],
    "min_val": [-1.0, -0.5],
    "max_val": [1.0, 1.5],
    "negative_slope": [0.01, 0.25],
    "beta": [1, 2.0],
    "scale": [1.0, 1.5],
    "input_scale": [1.0, 0.5],
    "nan": [None, 1.5],
    "posinf": [None, 2.0, 1e300],
    "neginf": [None, -3.0],
    "eps": [None, 0.25, 0.0],
    "lambd": [0.5, 0.25],
}

# Per-op scalar values where the shared ones above miss an edge: clamp_min / clamp_max take
# a NaN or infinite bound (NaN wins, as in PyTorch 1.13).
OP_SCALARS = {
    "aten::clamp_min": {"min": [-1.0, 0.5, 2, math.nan, -math.inf]},
    "aten::clamp_max": {"max": [2, -0.5, math.nan, math.inf]},
}


def scalar_values(name, argname):
    return OP_SCALARS.get(name, {}).get(argname) or SCALARS[argname]


def rows():
    text = open(os.path.join(ROOT, "engine", "ir", "ops.def")).read()
    # Columns may break across lines anywhere (mish's and hardswish's rows do): every
    # separator is a comma and any white space. A row the pattern missed would silently
    # leave its op out of the suite, so the rows found are counted against the table's.
    # A schema may hold escaped quotes (pad's mode=\"constant\").
    pattern = r'^(?:OP|OVERLOAD)\((\w+), "((?:[^"\\]|\\.)+)",\s*(\w+),\s*(\w+),\s*(.*?),\s*(\w+),\s*(E\(.*?\)|NOEXPR)\)$'
    found = list(re.finditer(pattern, text, re.M | re.S))
    total = len(re.findall(r'^(?:OP|OVERLOAD)\(', text, re.M))
    if len(found) != total:
        raise SystemExit(f"ops.def: {total} rows, the pattern reads {len(found)}")
    for m in found:
        kind, schema, family, shape, grad, flags, expr = m.groups()
        if expr != "NOEXPR":
            yield schema, shape, grad, flags


def parse_schema(schema):
    m = re.match(r"(aten::\w+)(?:\.(\w+))?\((.*)\) -> (.*)", schema)
    name, overload, args, _ = m.groups()
    out, kwarg_only = [], set()
    keyword = False
    for a in args.split(","):
        a = a.strip()
        if a == "*":
            keyword = True
            continue
        typ, rest = a.split(" ", 1)
        argname = rest.split("=")[0]
        out.append((typ, argname))
        if keyword:
            kwarg_only.add(argname)
    # The row being generated: elu's positional alpha is not add's keyword-only one.
    KWARG_ONLY.clear()
    KWARG_ONLY.update(kwarg_only)
    return name, overload or "", out


KWARG_ONLY = set()


def call_op(fn, args, tensors, scalars):
    """fn on the Tensor arguments in order and the scalars by name; kwarg-only ones by keyword."""
    positional, keywords, t = [], {}, 0
    for typ, argname in args:
        if typ == "Tensor":
            value = tensors[t]
            t += 1
        else:
            value = scalars[argname]
        if argname in KWARG_ONLY:
            keywords[argname] = value
        else:
            positional.append(value)
    return fn(*positional, **keywords)


def torch_op(name, overload):
    packet = getattr(torch.ops.aten, name.split("::")[1])
    return getattr(packet, overload or "default")


def number(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return float(v)


def values_of(t):
    return [number(v) for v in t.tolist()]


def constant_ir(index, v):
    if v is None:
        return f"  %c{index} : NoneType = prim::Constant()\n"
    if isinstance(v, bool):
        return f"  %c{index} : bool = prim::Constant[value={int(v)}]()\n"
    if isinstance(v, int):
        return f"  %c{index} : int = prim::Constant[value={v}]()\n"
    return f"  %c{index} : float = prim::Constant[value={repr(float(v))}]()\n"


def graph_ir(name, args, dtypes, scalars, n):
    params, body, operands = [], "", []
    t = 0
    for i, (typ, argname) in enumerate(args):
        if typ == "Tensor":
            params.append(f"%a{i} : {IR_TYPE[dtypes[t]]}({n})")
            operands.append(f"%a{i}")
            t += 1
        else:
            body += constant_ir(i, scalars[argname])
            operands.append(f"%c{i}")
    return ("graph(" + ", ".join(params) + "):\n" + body +
            f"  %r : Tensor = {name}(" + ", ".join(operands) + ")\n  return (%r)\n")


def tensor_dtypes(name, args, dtype):
    """The dtypes of the Tensor arguments of one case: where's condition is bool."""
    out = []
    for typ, argname in args:
        if typ == "Tensor":
            out.append("bool" if argname == "condition" else dtype)
    return out


# Where PyTorch 1.13's CPU kernels give what we consider a defect, and jitscope keeps libm's
# answer (README, "Known differences"): those points are left out of the data.
LARGEST = {"float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}


def known_difference(name, dtype, row):
    if (name in ("aten::fmod", "aten::remainder", "aten::floor_divide") and dtype in LARGEST
            and len(row) > 1):
        # PyTorch: NaN when the quotient overflows (a denormal divisor, a huge dividend);
        # libm's fmod is exact there.
        a, b = row[0], row[1]
        finite = not (math.isinf(a) or math.isnan(a) or math.isinf(b) or math.isnan(b))
        return finite and b != 0 and abs(a) / abs(b) > LARGEST[dtype] / 2
    if name == "aten::log1p" and dtype == "float32":
        return row[0] > 1e38  # PyTorch's vectorized log1pf: inf; libm: 88.6
    return False


def operand_lists(dtypes):
    n = len(dtypes)
    if n == 1:
        return [[v] for v in EDGE[dtypes[0]]]
    if n == 2:
        return [list(p) for p in itertools.product(EDGE[dtypes[0]], SHORT[dtypes[1]])]
    return [list(p) for p in itertools.product(SHORT[dtypes[0]], SHORT[dtypes[1]], THIRD[dtypes[2]])]


def value_cases():
    cases = []
    for schema, shape, grad, flags in rows():
        name, overload, args = parse_schema(schema)
        fn = torch_op(name, overload)
        scalar_names = [a for t, a in args if t != "Tensor"]
        scalar_sets = [dict(zip(scalar_names, combo))
                       for combo in itertools.product(*[scalar_values(name, a) for a in scalar_names])]
        for dtype in ["float32", "float64", "int64", "bool"]:
            for scalars in scalar_sets:
                dts = tensor_dtypes(name, args, dtype)
                if name == "aten::where" and dtype == "bool":
                    continue
                rows_ = [r for r in operand_lists(dts)
                         if not known_difference(name, dtype, r)]
                columns = list(zip(*rows_))
                tensors = [torch.tensor(list(c), dtype=DTYPES[d]) for c, d in zip(columns, dts)]
                try:
                    result = call_op(fn, args, tensors, scalars)
                except (RuntimeError, TypeError):
                    continue  # PyTorch refuses this dtype or these scalars
                cases.append({
                    "op": schema, "dtype": dtype, "fusible": flags == "PW_FUSIBLE",
                    "ir": graph_ir(name, args, dts, scalars, len(rows_)),
                    # The same op consumed by an identity (type_as itself), so that FuseGraph
                    # makes a group of it: groups grow from a consumer.
                    "ir_fused": graph_ir(name, args, dts, scalars, len(rows_)).replace(
                        "  return (%r)\n", "  %o : Tensor = aten::type_as(%r, %r)\n  return (%o)\n"),
                    "input_dtypes": dts,
                    "inputs": [values_of(x) for x in tensors],
                    "expected_dtype": str(result.dtype).replace("torch.", ""),
                    "expected": values_of(result),
                })
    return cases


# Gradients: moderate values inside every op's domain, shapes that broadcast.
GRAD_SHAPES = {1: [[(3, 3)], [()]], 2: [[(3, 1), (1, 3)], [(3, 3), ()]],
               3: [[(3, 1), (1, 3), (3, 3)], [(), (3, 3), (1, 3)]]}


def grad_cases():
    cases = []
    gen = torch.Generator().manual_seed(10)
    for schema, shape, grad, flags in rows():
        if not (grad.startswith("AD(") or grad.startswith("DERIV(")):
            continue
        name, overload, args = parse_schema(schema)
        fn = torch_op(name, overload)
        tensor_args = [a for t, a in args if t == "Tensor"]
        scalar_names = [a for t, a in args if t != "Tensor"]
        scalars = {a: next(v for v in scalar_values(name, a) if v is not None and v != 0)
                   for a in scalar_names}
        if name == "aten::pow" and overload == "Tensor_Scalar":
            scalars["exponent"] = 2.5
        for shapes in GRAD_SHAPES[len(tensor_args)]:
            for dtype in ["float64", "float32"]:
                inputs = []
                for argname, shp in zip(tensor_args, shapes):
                    if argname == "condition":
                        inputs.append(torch.rand(shp, generator=gen) > 0.5)
                        continue
                    x = 0.2 + 0.6 * torch.rand(shp, generator=gen, dtype=torch.float64)
                    if name not in ("aten::log", "aten::sqrt", "aten::rsqrt", "aten::log10",
                                    "aten::log2", "aten::lgamma", "aten::pow", "aten::log1p",
                                    "aten::reciprocal", "aten::acos", "aten::asin",
                                    "aten::atanh", "aten::acosh", "aten::xlogy",
                                    "aten::logit"):
                        x = x * torch.where(torch.rand(shp, generator=gen) > 0.5, 1.0, -1.5)
                    if name == "aten::acosh":  # defined above 1
                        x = x + 1.0
                    inputs.append(x.to(DTYPES[dtype]).requires_grad_(True))
                out = call_op(fn, args, inputs, scalars)
                out.sum().backward()
                dts = ["bool" if x.dtype == torch.bool else dtype for x in inputs]
                cases.append({
                    "op": schema, "dtype": dtype,
                    "ir": graph_ir(name, args, dts, scalars, 0).replace("(0)", "({})"),
                    "shapes": [list(s) for s in shapes],
                    "input_dtypes": dts,
                    "inputs": [values_of(x.detach().reshape(-1)) for x in inputs],
                    "grads": [None if x.grad is None else values_of(x.grad.reshape(-1))
                              for x in inputs],
                })
    return cases


def fix_shapes(case):
    """Writes each input's real shape into its graph type."""
    ir = case["ir"]
    for s, d in zip(case["shapes"], case["input_dtypes"]):
        ir = ir.replace(f"{IR_TYPE[d]}({{}})", f"{IR_TYPE[d]}(" + ", ".join(map(str, s)) + ")", 1)
    case["ir"] = ir
    return case


def main():
    os.makedirs(OUT, exist_ok=True)
    assert torch.__version__.startswith("1.13"), torch.__version__
    values = value_cases()
    covered = {c["op"] for c in values if c["dtype"] in ("float32", "float64")}
    missing = [schema for schema, _, _, _ in rows() if schema not in covered]
    assert not missing, f"no float cases for {missing}"
    grads = [fix_shapes(c) for c in grad_cases()]
    for name, data in [("pointwise.json", values), ("gradients.json", grads)]:
        with open(os.path.join(OUT, name), "w") as f:
            json.dump({"torch": torch.__version__, "cases": data}, f, separators=(",", ":"))
            f.write("\n")
        print(f"{name}: {len(data)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
