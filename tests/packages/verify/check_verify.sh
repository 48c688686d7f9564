#!/bin/sh
# og-opt --verify on the test package "verify" (verify_rules.cpp): the three wrong rules are
# reported with a counterexample each, the correct one is not, exit status 4. Each counterexample
# is read back: at most 10 ops, and og-opt --check on it with the package fails again (exit 4).
# Usage: check_verify.sh OG_OPT PACKAGE RUN_DIR
set -u
og_opt=$1 package=$2 dir=$3/verify-faults
rm -rf "$dir"
"$og_opt" --package "$package" --verify 100 -o "$dir" >"$dir.txt" 2>&1
status=$?
cat "$dir.txt"
test $status -eq 4 || { echo "FAIL: exit status $status, not 4"; exit 1; }
# The rules in the order of the file: the correct one first. (A rule's name is its file and line,
# and compilers differ in the line of a rule written over several lines: read, not written here.)
lines=$("$og_opt" --package "$package" --list-rules | grep -Eo '^verify_rules\.cpp:[0-9]+' | cut -d: -f2 | sort -n)
correct=$(printf '%s\n' $lines | head -1)
wrong=$(printf '%s\n' $lines | tail -n +2)
test "$(printf '%s\n' $wrong | wc -l)" -eq 3 || { echo "FAIL: want 4 rules, got lines $lines"; exit 1; }
grep -Eq "^verify_rules\\.cpp:$correct +[0-9]+ +[1-9][0-9]*  ok " "$dir.txt" || { echo "FAIL: the correct rule did not fire, or is not ok"; exit 1; }
for line in $wrong; do
  grep -Eq "^verify_rules\\.cpp:$line +[0-9]+ +[0-9]+  FAILED " "$dir.txt" || { echo "FAIL: rule $line not reported"; exit 1; }
  ce=$dir/verify_rules.cpp_$line.ogt
  test -f "$ce" || { echo "FAIL: no counterexample $ce"; exit 1; }
  ops=$(grep -c '^%' "$ce")
  echo "counterexample of verify_rules.cpp:$line: $ops ops"
  test "$ops" -le 10 || { echo "FAIL: $ce has more than 10 ops"; exit 1; }
  "$og_opt" "$ce" --package "$package" --check 2 -o "$dir/again.ogt" --dot "$dir/again.dot" >/dev/null 2>&1
  s=$?
  test $s -eq 4 || { echo "FAIL: og-opt --check on $ce exits $s, not 4"; exit 1; }
done
test "$(ls "$dir"/*.ogt | grep -c 'verify_rules.cpp_')" -eq 3 || { echo "FAIL: not exactly 3 counterexamples"; exit 1; }
echo "PLANTED-FAULTS-FOUND"
