# Sourced by the benchmark scripts: the host lines they print beside their figures (the C++
# benchmarks' counterpart is bench/common/host.hpp).
#
#   host_lines PREFIX before|after    prints "PREFIX cpu model: ..." (with "before") and
#                                     "PREFIX load average before|after: 1m 5m 15m (N cores)"
#                                     on stderr
host_cpu_model() {
  local m
  m="$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)"
  echo "${m:-unknown}"
}
host_load() {
  local l
  l="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
  echo "${l:-unknown}"
}
host_lines() {
  local prefix="$1" when="$2"
  [ "$when" = before ] && echo "$prefix cpu model: $(host_cpu_model)" >&2
  echo "$prefix load average $when: $(host_load) ($(nproc) cores)" >&2
}
