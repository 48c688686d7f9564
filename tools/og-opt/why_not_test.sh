#!/bin/sh
# og-opt --why-not end to end (test og-opt.why_not): OG_OPT GRAPH RUN_DIR. W1's rule R2 (an Add of a
# zero constant, w1_rules.cpp:8 with g++) on testdata/why_not.ogt, whose Adds %2, %4 and %6 miss it in the
# constraint, miss it in the match, and are rewritten by it; R3 (w1_rules.cpp:14), which never
# fires there, in the report's nearest misses.
og_opt="$1" graph="$2" run="$3"
fail() { echo "why-not: $*"; printf '%s\n' "$out"; exit 1; }
run() { "$og_opt" "$graph" -o "$run/why_not.opt.ogt" --dot "$run/why_not.opt.dot" "$@"; }
# A rule's name is its file and line, and compilers differ in the line of a rule written over
# several lines (g++ the first, clang the last): R2's and R3's names are read from --list-rules,
# and @R2@, @R3@ in an expected line stand for them.
name_of() { "$og_opt" --list-rules | grep -F -- "$1" | head -1 | cut -d: -f1-2; }
r2=$(name_of 'Op("Add","x",LET("c"')
r3=$(name_of 'Op("Mul","x",LET("c"')
has() {
  want=$(printf '%s' "$1" | sed "s/@R2@/$r2/g; s/@R3@/$r3/g")
  printf '%s\n' "$out" | grep -qxF -- "$want" || fail "missing line: $want"
}

out=$(run --why-not "$r2") || fail "exit status $?"
has 'graph: as it stands at the end of pass EARLY (the rule'"'"'s pass, at its fixed point, before CSE)'
has '%2 (Add): the constraint fails at EQ(CONSTVAL_FLOAT("c",0),0.0f): is false'
has '      CONSTVAL_FLOAT("c",0) = 0.5f'
has '%4 (Add): the match fails at Op("$Const"): input 1 of %4 (Add) is %3 (Input)'
has '2 ops: the match fails on 1, the constraint on 1; both hold on 0'

out=$(run --why-not "$r2" --at %4) || fail "exit status $?"
has '1 op: the match fails on 1, the constraint on 0; both hold on 0'
printf '%s\n' "$out" | grep -q '^%2 ' && fail "--at %4 explained %2"
out=$(run --why-not "$r2" --at 6) || fail "exit status $?"
has '%6 is not in the graph at the end of the pass (an earlier rewrite removed it)'

# A part of a name or canonical text that fits R2 and R3 (both read CONSTVAL_FLOAT), and one that fits none.
out=$(run --why-not CONSTVAL_FLOAT 2>&1)
[ $? -eq 2 ] || fail "an ambiguous RULE: exit status not 2"
has 'og-opt: --why-not CONSTVAL_FLOAT: more than one rule fits; give one of'
printf '%s\n' "$out" | grep -q "^  $r3: DEF_PACKAGE_OPTIMIZATION(EARLY,Op(\"Mul\"" || fail "R3 not listed"
out=$(run --why-not nosuch.cpp:1 2>&1)
[ $? -eq 2 ] || fail "an unknown RULE: exit status not 2"
has "og-opt: --why-not nosuch.cpp:1: no rule's name or canonical text contains it"
out=$(run --report "$run/why_not.md" > /dev/null && cat "$run/why_not.md") || fail "--report: exit status $?"
has '## Rules that never fired: their nearest misses (per rule, the part furthest into it first)'
has '| @R3@ | 1 | constraint | %8: is false (CONSTVAL_FLOAT("c",0) = 2.0f) | `EQ(CONSTVAL_FLOAT("c",0),1.0f)` |'
printf '%s\n' "$out" | sed -n '/^## Rules that never fired/,$p' | grep -qF "| $r2 |" &&
  fail "R2 fired, yet it is among the nearest misses"
echo "why-not: all as expected"
