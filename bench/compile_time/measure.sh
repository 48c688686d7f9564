#!/usr/bin/env bash
# Measures compile time and peak memory of one translation unit holding N distinct rules.
#   bench/compile_time/measure.sh [N...]      (default: 50 100 200)
# Prints one line per N: "rules=N seconds=S peak_mb=M" (g++-12 -O2 -std=c++20).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
inc="$here/../../include"
cxx="${CXX:-g++-12}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
counts=("$@"); [ ${#counts[@]} -eq 0 ] && counts=(50 100 200)
for n in "${counts[@]}"; do
  f="$work/rules_$n.cpp"
  echo '#include <optgrammar/rules.hpp>' > "$f"
  for ((i = 0; i < n; ++i)); do
    # Rules of realistic size, all different: a nested match, a typed constraint, a construction.
    case $((i % 4)) in
      0) echo "DEF_PACKAGE_OPTIMIZATION(EARLY + $i, Op(\"Relu$i\", LET(\"r\", Op(\"Relu\", \"x\"))), GT(DIM_WIDTH(\"*\"), $i), \"r\")" ;;
      1) echo "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Add$i\", \"x\", LET(\"c\", Op(\"\$Const\"))), AND(EQ(CONSTVAL_FLOAT(\"c\", 0), 0.0f), SAME_SHAPE(\"x\", \"*\")), \"x\")" ;;
      2) echo "DEF_PACKAGE_OPTIMIZATION(MIDDLE + $i, Op(\"Conv$i\", Op(\"Pad\", \"x\", \"p\"), \"w\"), AND(IS_QUINT8(\"x\"), EQ(MOD(DIM_DEPTH(\"w\"), 32), 0)), WITH_TYPE(\"x\", Op(\"ConvPad$i\", \"x\", \"p\", \"w\")))" ;;
      3) echo "DEF_PACKAGE_OPTIMIZATION(LATE, Op(\"T$i\", Op(\"T\", \"x\", \"p\"), \"q\"), AND(EQ(CONSTVAL_INT(\"p\", 0), 0), LT(RANK_OF(\"x\"), 5U), NE(DTYPE_OF(\"x\"), DType::Int32)), SELECT(GT(DIM_OF(\"x\", 1), 1), \"x\", Op(\"Copy$i\", \"x\")))" ;;
    esac >> "$f"
  done
  /usr/bin/time -f "%e %M" -o "$work/time" "$cxx" -std=c++20 -O2 -I"$inc" -c "$f" -o "$work/o.o"
  read -r secs kb < "$work/time"
  echo "rules=$n seconds=$secs peak_mb=$((kb / 1024))"
done
