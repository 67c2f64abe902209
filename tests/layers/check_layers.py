#!/usr/bin/env python3
"""Proves that the build enforces a layer order (docs/architecture.md): the engine's layers
(engine/meson.build's engine_layers) or the application's folders (app/meson.build's
app_folders).

For every layer X, a probe source is compiled with exactly the command the build uses for X's
own sources (from compile_commands.json), once per layer Y, including one header of Y. The
probe must compile when X may use Y (Y is X, or below X in the order) and must fail, on that
very include, otherwise. An include through the source tree root ("TREE/Y/...") must fail in
every layer. The engine's headers are included by layer ("ir/ir.h"), the application's by
name ("json_out.h").

usage: check_layers.py BUILD_DIR SOURCE_DIR TREE LAYER=USED,USED ...   (TREE: engine or app)
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile


def closure(uses, layer):
    seen, todo = set(), [layer]
    while todo:
        for used in uses[todo.pop()]:
            if used not in seen:
                seen.add(used)
                todo.append(used)
    return seen


def layer_command(commands, source_dir, tree, layer):
    """The compile command of one of the layer's sources, as argv without output and deps."""
    folder = os.path.join(source_dir, tree, layer) + os.sep
    for entry in commands:
        path = os.path.normpath(os.path.join(entry['directory'], entry['file']))
        if path.startswith(folder) and path.endswith('.c'):
            argv = shlex.split(entry['command']) if 'command' in entry else entry['arguments']
            kept, skip = [], False
            for i, arg in enumerate(argv):
                if skip:
                    skip = False
                elif arg in ('-o', '-MQ', '-MF', '-c'):
                    skip = True
                elif arg not in ('-MD', '-MMD') and arg != entry['file']:
                    kept.append(arg)
            return entry['directory'], kept
    sys.exit(f'no compile command for a source of {tree}/{layer}')


def a_header(source_dir, tree, layer):
    headers = sorted(f for f in os.listdir(os.path.join(source_dir, tree, layer))
                     if f.endswith('.h'))
    return f'{layer}/{headers[0]}' if tree == 'engine' else headers[0]


def compiles(directory, argv, include, scratch):
    probe = os.path.join(scratch, 'probe.c')
    with open(probe, 'w') as out:
        out.write(f'#include "{include}"\nint layer_probe;\n')
    run = subprocess.run(argv + ['-fsyntax-only', '-fdiagnostics-color=never', probe],
                         cwd=directory, capture_output=True, text=True)
    return run.returncode == 0, run.stderr


def main():
    build_dir, source_dir, tree = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    uses = {}
    for item in sys.argv[4:]:
        layer, _, used = item.partition('=')
        uses[layer] = [u for u in used.split(',') if u]
    with open(os.path.join(build_dir, 'compile_commands.json')) as f:
        commands = json.load(f)
    failures, allowed_ok, rejected_ok = [], 0, 0
    with tempfile.TemporaryDirectory() as scratch:
        for layer in uses:
            directory, argv = layer_command(commands, source_dir, tree, layer)
            may_use = closure(uses, layer) | {layer}
            probes = [(a_header(source_dir, tree, other), other in may_use) for other in uses]
            own_header = os.path.basename(a_header(source_dir, tree, layer))
            probes.append((f'{tree}/{layer}/{own_header}', False))
            for include, allowed in probes:
                ok, stderr = compiles(directory, argv, include, scratch)
                if allowed and ok:
                    allowed_ok += 1
                elif not allowed and not ok and include in stderr and 'No such file' in stderr:
                    rejected_ok += 1
                elif allowed:
                    failures.append(f'{layer}: #include "{include}" should compile:\n{stderr}')
                elif ok:
                    failures.append(f'{layer}: #include "{include}" compiled against the order')
                else:
                    failures.append(f'{layer}: #include "{include}" failed for another reason:\n'
                                    f'{stderr}')
    for failure in failures:
        print(failure)
    print(f'{allowed_ok} allowed includes compiled, {rejected_ok} wrong-way includes rejected, '
          f'{len(failures)} failures')
    return 1 if failures or not allowed_ok or not rejected_ok else 0


if __name__ == '__main__':
    sys.exit(main())
