#!/usr/bin/env python3
"""Two builds of one command, compared as processes: A and B run one after the other, in turn
(A B, then B A, ...), RUNS times each, each with the same arguments and its output thrown away.
For each: the median, fastest and first-quartile wall time (from its start by posix_spawn to
wait4), the median CPU time (user + system, from wait4), and with --bytes N the median's MB/s.
In turns, so that the slow and fast phases of a shared host fall on both alike; the host's CPU
model and load are printed before and after (bench/common/host.sh's lines).

  bench/common/ab_process.py [--runs N] [--bytes N] A B -- ARGS...

For example og-parse before and after a change, on the generated 10,000-rule file:
  bench/common/ab_process.py --runs 300 --bytes $(stat -c %s /tmp/og10k.txt) \\
      old/og-parse build/gcc/tools/og-parse/og-parse -- /tmp/og10k.txt
Exit status 1 when a run of either exits other than 0.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def host_line(when):
    """bench/common/host.sh's host lines (CPU model, load), as the other benchmark scripts print them."""
    host_sh = os.path.join(os.path.dirname(os.path.abspath(__file__)), "host.sh")
    subprocess.run(["bash", "-c", 'source "$0" && host_lines "[ab]" "$1"', host_sh, when], check=False)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=100, help="runs of each (default 100)")
    p.add_argument("--bytes", type=int, default=0, help="input size, for MB/s")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("args", nargs="*")
    o = p.parse_args()
    if o.runs < 1:
        p.error("--runs wants a positive number")
    for exe in (o.a, o.b):
        if not os.access(exe, os.X_OK):
            p.error(f"{exe} is no executable file")
    devnull = os.open(os.devnull, os.O_WRONLY)
    quiet = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    times = ([], [])  # by position: A and B may be the same file
    failed = 0
    host_line("before")
    for i in range(o.runs):
        for k in (0, 1) if i % 2 == 0 else (1, 0):
            exe = (o.a, o.b)[k]
            t0 = time.perf_counter()
            pid = os.posix_spawn(exe, [exe, *o.args], os.environ, file_actions=quiet)
            _, status, usage = os.wait4(pid, 0)
            wall = time.perf_counter() - t0
            failed += os.waitstatus_to_exitcode(status) != 0
            times[k].append((wall, usage.ru_utime + usage.ru_stime))
    host_line("after")
    for k, (name, exe) in enumerate((("A", o.a), ("B", o.b))):
        wall = sorted(t[0] for t in times[k])
        cpu = statistics.median(t[1] for t in times[k])
        med = statistics.median(wall)
        rate = f", {o.bytes / med / 1e6:.1f} MB/s at the median" if o.bytes else ""
        print(f"{name} {exe}: wall median {med * 1e3:.1f} ms (fastest {wall[0] * 1e3:.1f}, first quartile "
              f"{wall[len(wall) // 4] * 1e3:.1f}){rate}; CPU median {cpu * 1e3:.1f} ms; {o.runs} runs")
    if failed:
        print(f"[ab] {failed} runs exited other than 0", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
