# Sourced by bench/w1/compare.sh and bench/w2/compare.sh: the order of the engines in one round.
#
#   round_order ROUND PEER ENGINE...    prints ENGINE... in round ROUND's order, one per line
#
# Our engines (every ENGINE but PEER) rotate by one each round and PEER, when it is among them,
# runs last. So each of ours takes each position in turn, and the process that runs right after
# the peer (which frees a few hundred MB on exit; on a small VM the next process is then sometimes
# slower) is the first of the next round: a different engine every round. Rotating one list that
# holds the peer would put the same engine after it in every round.
round_order() {
  local round="$1" peer="$2" e k
  shift 2
  local ours=()
  for e in "$@"; do [ "$e" = "$peer" ] || ours+=("$e"); done
  local n=${#ours[@]}
  for ((k = 0; k < n; k++)); do echo "${ours[$(((round + k) % n))]}"; done
  for e in "$@"; do [ "$e" != "$peer" ] || echo "$e"; done
}
