#!/usr/bin/env bash
# Cross-check of msg.throughput against crossbeam-channel's own suite: alternates
# `overhead run --only msg.throughput --runtime os` (whose default grid holds spsc and mpsc at
# capacity N = 1024, other core, and spsc at capacity 0) with examples/channel_suite.rs (the suite's scenario, timed its way: one
# Instant over MESSAGES messages) on the same CPUs, ROUNDS times, and prints per case the median over rounds of
# each, our last run's 95% CI, and the difference in %. `overhead run` cannot filter parameters, so the whole
# default grid of os runs (12 cases; the table shows the 8 the suite also runs).
#
# Usage: scripts/crosscheck-channels.sh [ROUNDS [MESSAGES]]   (defaults 5 and 5000000; run on a quiet machine)
# Needs: cargo build --release && cargo build --release --example channel_suite; python3 for the table.
set -euo pipefail
ROUNDS=${1:-5}
MESSAGES=${2:-5000000}
cd "$(dirname "$0")/.."
BIN=target/release/overhead
SUITE=target/release/examples/channel_suite
[ -x "$BIN" ] && [ -x "$SUITE" ] || { echo "build first: cargo build --release && cargo build --release --example channel_suite" >&2; exit 1; }
DIR=$(mktemp -d /tmp/crosscheck-channels.XXXXXX)
for r in $(seq 1 "$ROUNDS"); do
    "$BIN" run --only msg.throughput --runtime os --no-history --out "$DIR/ours-$r" >"$DIR/ours-$r.log" 2>&1
    # The suite on the CPUs our other_core points used: producers on the first, the receiver on the last.
    read -r PCPU CCPU < <(python3 -c '
import json, sys
pts = [p for p in json.load(open(sys.argv[1]))["overhead"]["points"] if p["spec"]["experiment"] == "msg.throughput"]
print(pts[0]["spec"]["cpus"][0], pts[0]["spec"]["cpus"][-1])' "$DIR/ours-$r/results.json")
    "$SUITE" "$MESSAGES" "$PCPU" "$CCPU" >"$DIR/suite-$r.txt"
    echo "round $r/$ROUNDS done (CPUs $PCPU -> $CCPU)" >&2
done
python3 - "$DIR" "$ROUNDS" <<'PY'
import json, statistics, sys
d, rounds = sys.argv[1], int(sys.argv[2])
ours, ci, suite = {}, {}, {}
for r in range(1, rounds + 1):
    for p in json.load(open(f"{d}/ours-{r}/results.json"))["overhead"]["points"]:
        s = p["spec"]
        if s["experiment"] != "msg.throughput":
            continue
        k = dict(s["params"])
        key = (k["impl"], k["pattern"], k["capacity"])
        ours.setdefault(key, []).append(p["summary"]["median"])
        ci[key] = (p["summary"]["ci_low"], p["summary"]["ci_high"])
    for line in open(f"{d}/suite-{r}.txt"):
        impl, pattern, cap, ns = line.split()
        suite.setdefault((impl, pattern, cap), []).append(float(ns))
print(f"{'case':28} {'ours ns/msg':>12} {'our 95% CI (last run)':>24} {'suite ns/msg':>13} {'diff %':>8}")
for key in sorted(suite):
    if key not in ours:
        continue
    o, s = statistics.median(ours[key]), statistics.median(suite[key])
    lo, hi = ci[key]
    print(f"{'/'.join(key):28} {o:12.2f} {f'[{lo:.2f}, {hi:.2f}]':>24} {s:13.2f} {100 * (o - s) / s:+8.1f}")
print(f"(medians over {rounds} rounds; files in {d})")
PY
