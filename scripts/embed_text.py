#!/usr/bin/env python3
"""Writes a C file defining `const char SYMBOL[]` holding INPUT's text (build step: embeds
resource files the engine compiles at run time, e.g. resources/symbolic_script.py)."""
import sys

source, output, symbol = sys.argv[1:4]
text = open(source, encoding="utf-8").read()
escaped = text.replace("\\", "\\\\").replace('"', '\\"')
lines = "\n".join('  "%s\\n"' % line for line in escaped.split("\n")[:-1])
with open(output, "w", encoding="utf-8") as out:
    out.write("/* Generated from %s by scripts/embed_text.py: do not edit. */\n" % source.split("/")[-1])
    out.write("const char %s[] =\n%s;\n" % (symbol, lines if lines else '  ""'))
