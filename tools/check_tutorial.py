#!/usr/bin/env python3
"""Runs the commands of docs/tutorial.md and checks what the page says they print.

The page's indented blocks are either commands or their output. A command block's lines that
start with og-opt (bare, or as build/og-opt/tools/og-opt/og-opt) or grep are run, in order, from
a scratch folder that holds build/models (a link to the fetched models) and build/og-opt-out;
og-opt is the binary given. Each must exit 0. Then:
  - an output block right after a command block: each of its lines must be in what the commands
    printed (spaces collapsed); a line ending in "..." must begin one of the printed lines; lines
    lone "..." lines are left out and a fixed-point number (a time, e.g. 0.032 or 28.671 ms)
    matches any, as times depend on the machine;
  - the page's prose until the next command block: each `ops: ...`, `check: ...` and `PASS N M`
    (a pass table row) quoted in backticks must be in what the commands printed.
With --shell (docs/first-rule.md), every command block runs whole, as a bash script (set -e),
in the scratch folder with HOME set to it, the folder it ends in carried to the next block, and
build/og-opt a link to the build folder given by --build-dir; the output blocks are compared with
what it printed on stdout, as above.
Exit status 0 when all holds, 1 with each difference listed, 77 (skipped) without the models.
Usage: check_tutorial.py --og-opt PATH --models DIR [--keep DIR] docs/tutorial.md
       check_tutorial.py --shell --build-dir DIR --models DIR [--keep DIR] docs/first-rule.md
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

OG_OPT_WORDS = ("build/og-opt/tools/og-opt/og-opt", "og-opt")
# The first words of a command block; any other indented block is output.
COMMAND_WORDS = OG_OPT_WORDS + ("grep", "git", "cd", "bash", "cmake", "mkdir", "cat", "sed", "ls",
                                "g++-12", "clang++-14")
SKIP = 77


def norm(s):
    return " ".join(s.split())


def untimed(s):
    """A fixed-point number (a time column, e.g. 0.032) stands for any: times vary by machine. So
    does a rule label's line (see below). So do
    the check's differences (e.g. 3.81e-05) in their last digits, from one compiler to another:
    og-opt's exit status already says they are within the tolerance."""
    s = re.sub(r"\b\d+\.\d+\b(?![eE])", "#", s)
    # A rule's label is file:__LINE__, and for a rule written over several lines g++ gives its
    # first line, clang a later one.
    s = re.sub(r"(\.cpp:)\d+\b", r"\1#", s)
    if s.startswith("check:"):
        s = re.sub(r"\b\d+(\.\d+)?[eE][-+]?\d+\b", "#", s)
    return s


def blocks(text):
    """(kind, lines, prose-after) for each indented block: kind 'cmd' or 'out'."""
    out = []
    cur = None
    prose = []
    for line in text.splitlines():
        if line.startswith("    ") and line.strip():
            if cur is None:
                if out:
                    out[-1][2].extend(prose)
                prose = []
                cur = []
            cur.append(line[4:])
        else:
            if cur is not None:
                out.append([None, cur, []])
                cur = None
            prose.append(line)
    if cur is not None:
        out.append([None, cur, []])
    if out:
        out[-1][2].extend(prose)
    for b in out:
        first = b[1][0].split()[0]
        b[0] = "cmd" if first in COMMAND_WORDS or first.startswith('"$HOME/') else "out"
    return out


def commands(lines):
    """Joins continued lines; yields the runnable ones (og-opt and grep)."""
    joined, acc = [], ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            acc += line.rstrip()[:-1] + " "
            continue
        joined.append(acc + line)
        acc = ""
    for c in joined:
        word = c.split()[0]
        if word in OG_OPT_WORDS or word == "grep":
            yield c


def claims(prose):
    """Backticked `ops: ...`, `check: ...` and pass-table rows in the prose (may wrap lines)."""
    text = " ".join(prose)
    for m in re.finditer(r"`([^`]+)`", text):
        q = untimed(norm(m.group(1)))
        concrete = q.startswith(("ops: ", "check: ")) and re.search(r"\d", q)
        if concrete or re.fullmatch(r"[A-Z_]+ \d+ \d+", q):
            yield q


def run_block(lines, work, cwd_file):
    """--shell: the block as one bash script from the folder the previous block ended in."""
    script = 'cd "$(cat "$OG_CWD_FILE")"\nset -e\n' + "\n".join(lines) + '\npwd > "$OG_CWD_FILE"\n'
    env = dict(os.environ, HOME=work, OG_CWD_FILE=cwd_file)
    r = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True)
    print("$ " + "\n  ".join(lines) + f"\n  exit {r.returncode}")
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--og-opt")
    ap.add_argument("--shell", action="store_true")
    ap.add_argument("--build-dir")
    ap.add_argument("--models", required=True)
    ap.add_argument("--keep", help="run in this folder and keep it")
    ap.add_argument("page")
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(a.models, "ocr-models")):
        print(f"SKIPPED: no PP-OCR models in {a.models} (tools/fetch-models.sh)")
        return SKIP
    if a.shell != bool(a.build_dir) or a.shell == bool(a.og_opt):
        ap.error("give --og-opt, or --shell with --build-dir")
    og_opt = os.path.abspath(a.og_opt) if a.og_opt else None
    with open(a.page, encoding="utf-8") as f:
        bs = blocks(f.read())
    work = a.keep or tempfile.mkdtemp(prefix="og-tutorial-")
    os.makedirs(os.path.join(work, "build", "og-opt-out"), exist_ok=True)
    link = os.path.join(work, "build", "models")
    if not os.path.exists(link):
        os.symlink(os.path.abspath(a.models), link)
    cwd_file = os.path.join(work, ".cwd")
    if a.shell:
        with open(cwd_file, "w", encoding="utf-8") as f:
            f.write(work)
        build_link = os.path.join(work, "build", "og-opt")
        if not os.path.exists(build_link):
            os.symlink(os.path.abspath(a.build_dir), build_link)
    faults, ran, checked = [], 0, 0
    try:
        for i, (kind, lines, prose) in enumerate(bs):
            if kind != "cmd":
                continue
            printed = []
            if a.shell:
                r = run_block(lines, work, cwd_file)
                ran += 1
                if r.returncode != 0:
                    faults.append(f"block {i + 1} exited {r.returncode}: {(r.stdout + r.stderr).strip()[-600:]}")
                printed += [norm(x) for x in r.stdout.splitlines() if x.strip()]
            for c in ([] if a.shell else commands(lines)):
                word = c.split()[0]
                if word in OG_OPT_WORDS:
                    c = "'" + og_opt + "'" + c[len(word):]
                r = subprocess.run(c, shell=True, cwd=work, capture_output=True, text=True)
                ran += 1
                print(f"$ {c}\n  exit {r.returncode}")
                if r.returncode != 0:
                    faults.append(f"`{c}` exited {r.returncode}: {r.stderr.strip()[:400]}")
                printed += [norm(x) for x in r.stdout.splitlines() if x.strip()]
            if not printed:
                continue
            shown = []  # the output blocks right after the commands (an excerpt may have gaps)
            j = i + 1
            while j < len(bs) and bs[j][0] == "out":
                shown.append((j, bs[j][1]))
                prose = bs[j][2]
                j += 1
            timeless = [untimed(p) for p in printed]
            for j, lines_shown in shown:
                for want in lines_shown:
                    w = untimed(norm(want))
                    if not w or w == "...":
                        continue
                    checked += 1
                    if w.endswith("..."):
                        ok = any(p.startswith(w[:-3]) for p in timeless)
                    else:
                        ok = w in timeless
                    if not ok:
                        faults.append(f"block {j + 1}: the page shows `{want.strip()}`, the commands did not print it")
            for q in claims(prose):
                checked += 1
                if not any(q in p for p in timeless):
                    faults.append(f"block {i + 1}: the page says `{q}`, the commands did not print it")
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    for f in faults:
        print("tutorial:", f)
    print(f"{ran} commands run, {checked} printed lines checked, {len(faults)} differences")
    return 1 if faults or ran == 0 or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
