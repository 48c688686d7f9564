#!/usr/bin/env python3
"""Checks the include graph between the folders (layers) of include/optgrammar.

Usage: check_layers.py INCLUDE_DIR [FOLDER...]

Reads every header under INCLUDE_DIR/optgrammar, keeps its `#include "optgrammar/<folder>/..."`
lines as edges between folders, and fails (exit status 1) when the named folders (all folders
when none is named) take part in a cycle: a folder that includes, directly or through other
folders, a folder that includes it back. Each such cycle is printed with one include that makes
each of its steps. Headers directly under optgrammar/ (rules.hpp, runtime.hpp, ...) gather
layers and are not a layer themselves.
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]optgrammar/([^/">]+)/[^">]+[">]', re.M)


def folder_edges(root):
    """{(from_folder, to_folder): 'file: #include line'} for includes that cross folders."""
    edges = {}
    base = root / 'optgrammar'
    for header in sorted(base.rglob('*.hpp')):
        rel = header.relative_to(base)
        if len(rel.parts) < 2:
            continue
        src = rel.parts[0]
        for m in INCLUDE.finditer(header.read_text(encoding='utf-8')):
            dst = m.group(1)
            if dst != src:
                edges.setdefault((src, dst), f'optgrammar/{rel}: {m.group(0).strip()}')
    return edges


def path(edges, start, goal):
    """A shortest list of folders from start to goal following edges, or None."""
    prev = {start: None}
    todo = [start]
    while todo:
        nxt = []
        for a in todo:
            for (x, y) in edges:
                if x == a and y not in prev:
                    prev[y] = a
                    nxt.append(y)
        todo = nxt
    if goal not in prev:
        return None
    out = [goal]
    while prev[out[-1]] is not None:
        out.append(prev[out[-1]])
    return out[::-1]


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = pathlib.Path(argv[1])
    edges = folder_edges(root)
    folders = sorted({f for e in edges for f in e})
    wanted = argv[2:] or folders
    failed = False
    seen = set()
    for a in wanted:
        for (x, b) in sorted(edges):
            if x != a:
                continue
            back = path(edges, b, a)
            if back is None:
                continue
            cycle = [a] + back
            key = frozenset(cycle)
            if key in seen:
                continue
            seen.add(key)
            failed = True
            print('include cycle between layers: ' + ' -> '.join(cycle))
            for s, t in zip(cycle, cycle[1:]):
                print('  ' + edges[(s, t)])
    if not failed:
        print(f'no include cycle through {", ".join(wanted)} ({len(edges)} edges between {len(folders)} folders)')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
