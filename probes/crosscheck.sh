#!/usr/bin/env bash
# Cross-check of the go probe against Go's own benchmark harness (issue 15): Go's unbuffered-channel
# round trip (msg.switch, per message) and goroutine spawn + join (spawn.create kind:task), measured first
# by `overhead run --runtime go` through the probe, then, right after, by `go test -bench` in probes/go
# (bench_test.go, written without the probe's code) on the same CPU with GOMAXPROCS=1. Prints both
# medians and their difference; exits 1 when one differs by more than LIMIT percent (default 10).
#
#   probes/crosscheck.sh                      uses target/release/overhead (cargo build --release first)
#   OVERHEAD=/path/to/overhead LIMIT=10 COUNT=10 probes/crosscheck.sh
#
# Needs go, taskset, jq and awk.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
OVERHEAD=${OVERHEAD:-$root/target/release/overhead}
LIMIT=${LIMIT:-10}
COUNT=${COUNT:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$OVERHEAD" run --runtime go --only msg.switch,spawn.create --out "$tmp/run" >/dev/null 2>"$tmp/run.log"
record="$tmp/run/results.json"
point() { # name → "median ci_low ci_high cpu"
  jq -r --arg n "$1" '.overhead.points[] | select(.name == $n) |
    "\(.summary.median) \(.summary.ci_low) \(.summary.ci_high) \(.spec.cpus[0])"' "$record"
}
read -r switch_median switch_low switch_high cpu < <(point "msg.switch/runtime:go/placement:same_cpu")
read -r spawn_median spawn_low spawn_high _ < <(point "spawn.create/runtime:go/kind:task")

(cd "$root/probes/go" && GOTOOLCHAIN=local taskset -c "$cpu" go test -run '^$' \
  -bench 'UnbufferedRoundTrip|SpawnJoin' -cpu 1 -count "$COUNT" -benchtime 200ms) >"$tmp/bench.txt"
bench_median() { # benchmark name → median ns/op of its COUNT runs
  awk -v b="$1" '$1 ~ "^"b {print $3}' "$tmp/bench.txt" | sort -g |
    awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'
}
bench_range() {
  awk -v b="$1" '$1 ~ "^"b {print $3}' "$tmp/bench.txt" | sort -g | awk 'NR==1{lo=$1} {hi=$1} END {print lo" – "hi}'
}

status=0
report() { # label, overhead median, low, high, go test benchmark
  local go_median; go_median=$(bench_median "$5")
  awk -v l="$1" -v m="$2" -v lo="$3" -v hi="$4" -v g="$go_median" -v r="$(bench_range "$5")" -v limit="$LIMIT" 'BEGIN {
    d = (m / g - 1) * 100
    printf "%-34s overhead %9.1f ns [%.1f, %.1f]   go test -bench %9.1f ns (%s)   %+6.1f%%%s\n",
      l, m, lo, hi, g, r, d, (d > limit || d < -limit) ? "  > ±" limit "%" : ""
    exit (d > limit || d < -limit) ? 1 : 0 }' || status=1
}
echo "CPU $cpu, GOMAXPROCS=1; go test: median of $COUNT runs of 200 ms (min – max)"
report "unbuffered round trip, per message" "$switch_median" "$switch_low" "$switch_high" BenchmarkUnbufferedRoundTrip
report "goroutine spawn + join" "$spawn_median" "$spawn_low" "$spawn_high" BenchmarkSpawnJoin
exit $status
