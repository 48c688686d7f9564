#!/usr/bin/env bash
# Measures compile time and peak memory of one translation unit holding N distinct rules.
#   bench/compile_time/measure.sh [--shape mixed|rich|distinct] [N...]      (default: mixed, 50 100 200)
# mixed: four rule shapes in turn; rich: every rule as rich as real ones (a nested match, a
# constraint of six terms with properties, SAME_SHAPE and arithmetic, a two-op construction);
# distinct: rules as rich, each of its own shape (no two share their apply function, the worst
# case for docs/engine.md's "Rule code": up to 210 shapes).
# N = 0 measures `#include <optgrammar/rules.hpp>` alone (the fixed cost of a rule translation unit).
# Prints one line per N: "shape=S rules=N seconds=S user=U peak_mb=M" (g++-12 -O2 -std=c++20);
# `user` is CPU time, which moves less than wall time when the machine is busy. OG_INC=DIR measures
# the headers under DIR instead (an A/B against another version of include/).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../common/host.sh"
inc="${OG_INC:-$here/../../include}"
cxx="${CXX:-g++-12}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
shape=mixed
if [ "${1:-}" = "--shape" ]; then shape="$2"; shift 2; fi
case "$shape" in mixed|rich|distinct) ;; *) echo "measure.sh: --shape is mixed, rich or distinct, not '$shape'" >&2; exit 2 ;; esac
# The terms and replacements the distinct rules are made of: rule i takes the first 1 + i % 7
# terms, replacement (i / 7) % 5 and match (i / 35) % 6, so rules 0..209 differ in shape.
terms=('IS_FLOAT32("x")' 'GT(DIM_DEPTH("*"), $i)' 'EQ(RANK_OF("y"), 4)' 'SAME_SHAPE("x", "z")'
       'OR(EQ(CONSTVAL_INT("z", 0), $i), LT(ADD(DIM_WIDTH("x"), DIM_HEIGHT("x")), $i))' 'NE(DTYPE_OF("y"), DType::Int32)'
       'LE(MUL(DIM_OF("z", 1), 2), $i)')
repls=('Op("OpC", "x", "y", Op("OpD", "z"))' 'Op("OpC", Op("OpD", "x"), "y", "z")' 'WITH_TYPE("x", Op("OpE", "x", "y", "z"))'
       'Op("OpF", "z", Op("OpD", Op("OpD", "x")), "y")' 'SELECT(GT(DIM_OF("x", 1), 1), Op("OpG", "x", "y", "z"), Op("OpH", "z", "y"))')
matches=('Op("OpA$i", LET("l", Op("OpB", "x", "y")), "z")' 'Op("OpA$i", "z", LET("l", Op("OpB", "x", "y")))'
         'Op("OpA$i", LET("l", Op("OpB", "x", "y")), LET("m", Op("OpK", "z")))' 'OpVarIn("OpA$i", LET("l", Op("OpB", "x", "y")), "z")'
         'Op("OpA$i", LET("l", Op("OpB", "x", Op("OpJ", "y"))), "z")' 'Op("OpA$i", LET("l", OpVarIn("OpB", "x", "y")), "z")')
counts=("$@"); [ ${#counts[@]} -eq 0 ] && counts=(50 100 200)
host_lines "[measure]" before
for n in "${counts[@]}"; do
  f="$work/rules_$n.cpp"
  echo '#include <optgrammar/rules.hpp>' > "$f"
  for ((i = 0; i < n; ++i)); do
    if [ "$shape" = distinct ]; then
      t="${terms[0]}"
      for ((k = 1; k <= i % 7; ++k)); do t="$t, ${terms[k]}"; done
      m="${matches[$(((i / 35) % 6))]}"
      echo "DEF_PACKAGE_OPTIMIZATION(EARLY, ${m//\$i/$i}, AND(${t//\$i/$i}), ${repls[$(((i / 7) % 5))]})" >> "$f"
      continue
    fi
    if [ "$shape" = rich ]; then
      echo "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"OpA$i\", LET(\"l\", Op(\"OpB\", \"x\", \"y\")), \"z\"), AND(IS_FLOAT32(\"x\"), GT(DIM_DEPTH(\"*\"), $i), EQ(RANK_OF(\"y\"), 4), SAME_SHAPE(\"x\", \"z\"), OR(EQ(CONSTVAL_INT(\"z\", 0), $i), LT(ADD(DIM_WIDTH(\"x\"), DIM_HEIGHT(\"x\")), $((3 * i))))), Op(\"OpC\", \"x\", \"y\", Op(\"OpD\", \"z\")))" >> "$f"
      continue
    fi
    # Rules of realistic size, all different: a nested match, a typed constraint, a construction.
    case $((i % 4)) in
      0) echo "DEF_PACKAGE_OPTIMIZATION(EARLY + $i, Op(\"Relu$i\", LET(\"r\", Op(\"Relu\", \"x\"))), GT(DIM_WIDTH(\"*\"), $i), \"r\")" ;;
      1) echo "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Add$i\", \"x\", LET(\"c\", Op(\"\$Const\"))), AND(EQ(CONSTVAL_FLOAT(\"c\", 0), 0.0f), SAME_SHAPE(\"x\", \"*\")), \"x\")" ;;
      2) echo "DEF_PACKAGE_OPTIMIZATION(MIDDLE + $i, Op(\"Conv$i\", Op(\"Pad\", \"x\", \"p\"), \"w\"), AND(IS_QUINT8(\"x\"), EQ(MOD(DIM_DEPTH(\"w\"), 32), 0)), WITH_TYPE(\"x\", Op(\"ConvPad$i\", \"x\", \"p\", \"w\")))" ;;
      3) echo "DEF_PACKAGE_OPTIMIZATION(LATE, Op(\"T$i\", Op(\"T\", \"x\", \"p\"), \"q\"), AND(EQ(CONSTVAL_INT(\"p\", 0), 0), LT(RANK_OF(\"x\"), 5U), NE(DTYPE_OF(\"x\"), DType::Int32)), SELECT(GT(DIM_OF(\"x\", 1), 1), \"x\", Op(\"Copy$i\", \"x\")))" ;;
    esac >> "$f"
  done
  /usr/bin/time -f "%e %U %M" -o "$work/time" "$cxx" -std=c++20 -O2 -I"$inc" -c "$f" -o "$work/o.o"
  read -r secs user kb < "$work/time"
  echo "shape=$shape rules=$n seconds=$secs user=$user peak_mb=$((kb / 1024))"
done
host_lines "[measure]" after
