#!/usr/bin/env python3
"""Loop shapes of the HVX kernels from `llvm-objdump-14 -d fold_hvx_shapes.cpp.o`.

For every function, finds the innermost loops (a branch back to an earlier address in the
same function) that contain HVX instructions, and prints per loop: packets, instructions, HVX
instructions, vector loads/stores. Usage: loop_shapes.py < disassembly
"""
import re
import sys

func_re = re.compile(r'^([0-9a-f]+) <([^>]+)>:')
insn_re = re.compile(r"^\s*([0-9a-f]+):\t(?:[0-9a-f]{2} ){3}[0-9a-f]{2}\t[0-9a-f]{8}\s+(.*)$")
vreg_re = re.compile(r'\bv\d+(:\d+)?\b|\bq\d\b|vmem')
funcs, cur = [], None
for line in sys.stdin:
    m = func_re.match(line)
    if m:
        cur = (m.group(2), [])
        funcs.append(cur)
        continue
    m = insn_re.match(line)
    if m and cur:
        cur[1].append((int(m.group(1), 16), m.group(2)))

for name, insns in funcs:
    loops = []
    for i, (addr, text) in enumerate(insns):
        targets = [int(t, 16) for t in re.findall(r'(?:jump(?::n?t)?|loop0\()\s*0x([0-9a-f]+)', text)]
        for t in targets:
            if 'loop0' in text:
                # hardware loop: body is [t, packet with :endloop0]
                end = next((a for a, x in insns if a >= t and ':endloop0' in x), None)
                if end is not None:
                    loops.append((t, end))
            elif t <= addr and t >= insns[0][0]:
                loops.append((t, addr))
    ranges = sorted(set(loops))
    # innermost loops only: no other loop strictly inside
    inner = [r for r in ranges if not any(o != r and r[0] <= o[0] and o[1] <= r[1] for o in ranges)]
    for lo, hi in inner:
        idx = [i for i, (a, _) in enumerate(insns) if lo <= a <= hi]
        last = idx[-1]
        while last + 1 < len(insns) and not insns[last][1].rstrip().endswith(('}', ':endloop0')):
            last += 1  # the rest of the packet holding the branch
        body = [insns[i][1] for i in range(idx[0], last + 1)]
        hvx = [x for x in body if vreg_re.search(x)]
        if len(hvx) < 2:
            continue
        packets = sum(1 for x in body if x.lstrip().startswith('{'))
        loads = sum(1 for x in body if re.search(r'=\s*vmemu?\(', x))
        stores = sum(1 for x in body if re.search(r'vmemu?\([^)]*\)\s*=', x))
        print(f'{name}: loop {lo:#x}-{hi:#x}: {packets} packets, {len(body)} instructions, '
              f'{len(hvx)} HVX (vector loads {loads}, stores {stores})')
