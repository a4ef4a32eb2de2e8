#!/usr/bin/env bash
# Cross-check of the go probe against Go's own benchmark harness: Go's unbuffered-channel
# round trip (msg.switch, per message) and goroutine spawn + join (spawn.create kind:task), measured
# by `overhead run --runtime go` through the probe and, right after each run, by `go test -bench` in
# probes/go (bench_test.go, written without the probe's code) on the same CPU with GOMAXPROCS=1; and
# chan throughput (msg.throughput impl:chan, spsc and mpsc at capacity 1024 and spsc at 0, two Ps on the
# point's two CPUs) against BenchmarkChanThroughput with -cpu 2 under taskset on the same two CPUs.
# Prints both medians and their difference; exits 1 when one differs by more than LIMIT percent
# (default 10; TLIMIT, default 15, for throughput).
#
#   probes/crosscheck.sh                      uses target/release/overhead (cargo build --release first)
#   OVERHEAD=/path/to/overhead LIMIT=10 COUNT=5 ROUNDS=5 probes/crosscheck.sh
#
# Needs go, taskset, jq and awk.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
OVERHEAD=${OVERHEAD:-$root/target/release/overhead}
LIMIT=${LIMIT:-10}
TLIMIT=${TLIMIT:-15}
COUNT=${COUNT:-5}
ROUNDS=${ROUNDS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The two harnesses run alternately, ROUNDS times (A B A B …), so that a slow phase of a shared host
# (seconds long on a KVM guest with a busy SMT sibling) falls on both rather than on whichever ran first.
point() { # record, name → "median ci_low ci_high cpu"
  jq -r --arg n "$2" '.overhead.points[] | select(.name == $n) |
    "\(.summary.median) \(.summary.ci_low) \(.summary.ci_high) \(.spec.cpus[0])"' "$1"
}
: >"$tmp/overhead.txt"
: >"$tmp/bench.txt"
for round in $(seq "$ROUNDS"); do
  "$OVERHEAD" run --runtime go --only msg.switch,spawn.create --out "$tmp/run$round" >/dev/null 2>"$tmp/run.log"
  record="$tmp/run$round/results.json"
  read -r switch_median switch_low switch_high cpu < <(point "$record" "msg.switch/runtime:go/impl:chan/placement:same_cpu")
  read -r spawn_median spawn_low spawn_high _ < <(point "$record" "spawn.create/runtime:go/kind:task")
  echo "switch $switch_median $switch_low $switch_high" >>"$tmp/overhead.txt"
  echo "spawn $spawn_median $spawn_low $spawn_high" >>"$tmp/overhead.txt"
  (cd "$root/probes/go" && GOTOOLCHAIN=local taskset -c "$cpu" go test -run '^$' \
    -bench 'UnbufferedRoundTrip|SpawnJoin' -cpu 1 -count "$COUNT" -benchtime 200ms) >>"$tmp/bench.txt"
  "$OVERHEAD" run --runtime go --only msg.throughput --out "$tmp/tp$round" >/dev/null 2>"$tmp/run.log"
  for c in spsc/1024 mpsc/1024 spsc/0; do
    name="msg.throughput/runtime:go/impl:chan/pattern:${c%/*}/capacity:${c#*/}/placement:other_core"
    read -r median low high _ < <(point "$tmp/tp$round/results.json" "$name")
    echo "tp_${c/\//_} $median $low $high" >>"$tmp/overhead.txt"
  done
  pair=$(jq -r '[.overhead.points[] | select(.spec.experiment == "msg.throughput")][0].spec.cpus | "\(.[0]),\(.[-1])"' \
    "$tmp/tp$round/results.json")
  (cd "$root/probes/go" && GOTOOLCHAIN=local taskset -c "$pair" go test -run '^$' \
    -bench 'ChanThroughput' -cpu 2 -count "$COUNT" -benchtime 200ms) >>"$tmp/bench.txt"
done
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
range() { sort -g | awk 'NR==1{lo=$1} {hi=$1} END {printf "%.1f – %.1f\n", lo, hi}'; }
bench_median() { awk -v b="$1" '$1 ~ "^"b {print $3}' "$tmp/bench.txt" | median; }
bench_range() { awk -v b="$1" '$1 ~ "^"b {print $3}' "$tmp/bench.txt" | range; }
overhead_median() { awk -v k="$1" '$1 == k {print $2}' "$tmp/overhead.txt" | median; }
overhead_range() { awk -v k="$1" '$1 == k {print $2}' "$tmp/overhead.txt" | range; }

status=0
report() { # label, overhead key, go test benchmark[, limit]
  local go_median; go_median=$(bench_median "$3")
  awk -v l="$1" -v m="$(overhead_median "$2")" -v or="$(overhead_range "$2")" -v g="$go_median" \
    -v r="$(bench_range "$3")" -v limit="${4:-$LIMIT}" 'BEGIN {
    d = (m / g - 1) * 100
    printf "%-34s overhead %7.1f ns (%s)   go test -bench %7.1f ns (%s)   %+6.1f%%%s\n",
      l, m, or, g, r, d, (d > limit || d < -limit) ? "  > ±" limit "%" : ""
    exit (d > limit || d < -limit) ? 1 : 0 }' || status=1
}
echo "CPU $cpu, GOMAXPROCS=1, $ROUNDS alternating rounds; overhead: median of the rounds' medians (min – max);"
echo "go test: median of $ROUNDS × $COUNT runs of 200 ms (min – max)"
report "unbuffered round trip, per message" switch BenchmarkUnbufferedRoundTrip
report "goroutine spawn + join" spawn BenchmarkSpawnJoin
echo "chan throughput: two Ps (GOMAXPROCS=2) on CPUs $pair, per message"
report "chan spsc, capacity 1024" tp_spsc_1024 'BenchmarkChanThroughput/spsc/1024-' "$TLIMIT"
report "chan mpsc, capacity 1024" tp_mpsc_1024 'BenchmarkChanThroughput/mpsc/1024-' "$TLIMIT"
report "chan spsc, capacity 0 (rendezvous)" tp_spsc_0 'BenchmarkChanThroughput/spsc/0-' "$TLIMIT"
exit $status
