#!/usr/bin/python3
"""Writes tests/script/cases/NAME.ir: PyTorch's own print of the graph of every
tests/script/cases/NAME.py (the file's first def), the oracle of the script frontend's tests.

Run with Debian's PyTorch 1.13 (/usr/bin/python3 scripts/gen_script_cases.py). Each file is
compiled whole by torch.jit.CompilationUnit, so source comments read `<string>:LINE:COL` with
the file's own line numbers. PyTorch 1.13 lifts closures and names the node prim::Closure;
the 2019 compiler this project follows (seed 003) named it prim::Function, so that kind name
is rewritten. 1.13 also types a tuple holding a closure as if the closure were NoneType, where
seed 003 gives it the closure's own type `Tuple[None, Tuple[context...]]`; those tuple element
types are rewritten to the seed's. Nothing else is touched."""
import math  # noqa: F401  (resolved by the CompilationUnit from this frame)
import pathlib
import re
import sys

import torch
import torch.nn.functional as F  # noqa: F401  (resolved by the CompilationUnit from this frame)
from torch import Tensor  # noqa: F401
from typing import Dict, List, Optional, Tuple  # noqa: F401

def split_top_level(types):
    """'Tensor, (NoneType, (Tensor, Tensor))' -> ['Tensor', '(NoneType, (Tensor, Tensor))']"""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(types):
        depth += c == "("
        depth -= c == ")"
        if c == "," and depth == 0:
            parts.append(types[start:i].strip())
            start = i + 1
    parts.append(types[start:].strip())
    return parts


def seed_closure_types(graph):
    closure_types = {}  # value name -> its type, for TupleConstruct(prim::Function, context)
    functions = set(re.findall(r"(%[\w.]+) : NoneType = prim::Function_\d+\(\)", graph))
    lines = graph.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"(\s*)(%[\w.]+) : \((.*)\) = prim::TupleConstruct\((.*)\)(.*)$", line)
        if not m:
            continue
        indent, out, types, args, rest = m.groups()
        args = [a.strip() for a in args.split(",")]
        elems = split_top_level(types)
        if len(args) == 2 and args[0] in functions:
            closure_types[out] = f"({types})"
            continue
        fixed = [closure_types.get(a, t) for a, t in zip(args, elems)]
        if fixed != elems:
            lines[i] = f"{indent}{out} : ({', '.join(fixed)}) = prim::TupleConstruct({', '.join(args)}){rest}"
    return "\n".join(lines) + "\n"


cases = pathlib.Path(__file__).resolve().parent.parent / "tests" / "script" / "cases"
for source in sorted(cases.glob("*.py")):
    text = source.read_text()
    # CompilationUnit reads only defs: import lines become blank lines (line numbers kept).
    defs_only = "\n".join("" if line.startswith(("import ", "from ")) else line
                          for line in text.splitlines()) + "\n"
    unit = torch.jit.CompilationUnit(defs_only)
    first = next(line.split("(")[0][4:] for line in text.splitlines() if line.startswith("def "))
    graph = seed_closure_types(
        str(getattr(unit, first).graph).replace("prim::Closure", "prim::Function"))
    source.with_suffix(".ir").write_text(graph)
    print(f"{source.name}: {len(graph.splitlines())} lines", file=sys.stderr)
