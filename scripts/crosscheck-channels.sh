#!/usr/bin/env bash
# Cross-check of msg.throughput against crossbeam-channel's own suite, in both scenarios (docs/METHOD.md §9,
# "Channel throughput: which question a number answers"): alternates
# `overhead run --only msg.throughput --runtime os` with examples/channel_suite.rs (the suite's scenario,
# timed its way: one Instant over MESSAGES messages from the threads' spawn) ROUNDS times, the suite once with
# its threads pinned as our placement:other_core points pin them (producers on one CPU, the receiver on another)
# and once free as the suite runs them (our placement:free), at capacities 1024, unbounded and the message count
# (ours: 1048576, a bound no batch reaches; only `--full` measures it, so the default run's table leaves it out). Right after each suite case the example also runs
# msg.throughput's own measurement of it in the same process (`--timer harness`), so the two methods are paired
# within seconds: on a host whose speed drifts by tens of percent over minutes, that pair says whether the
# method agrees, while the run's numbers (a minute apart from the suite's) say what the product reports.
# Prints per case the median over rounds of each, our last run's 95% CI, the run's difference from the
# suite in %, the paired difference (median over rounds of harness/suite − 1), and whether the crates come out
# in the same order wherever our CIs do not overlap; exits 1 when a run's case differs by more than LIMIT
# percent (default 15) or an order is swapped.
#
# Usage: scripts/crosscheck-channels.sh [ROUNDS [MESSAGES]]   (defaults 5 and 5000000; run on a quiet machine)
# Needs: cargo build --release && cargo build --release --example channel_suite; python3 for the table.
set -euo pipefail
ROUNDS=${1:-5}
MESSAGES=${2:-5000000}
LIMIT=${LIMIT:-15}
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
pts = [p for p in json.load(open(sys.argv[1]))["overhead"]["points"]
       if p["spec"]["experiment"] == "msg.throughput" and dict(p["spec"]["params"])["placement"] == "other_core"]
print(pts[0]["spec"]["cpus"][0], pts[0]["spec"]["cpus"][-1])' "$DIR/ours-$r/results.json")
    for scenario in other_core free; do
        "$SUITE" --messages "$MESSAGES" --scenario "$scenario" --producer-cpu "$PCPU" --consumer-cpu "$CCPU" \
            --capacity 1024 --capacity unbounded --capacity messages --pattern spsc --pattern mpsc \
            --timer suite --timer harness >>"$DIR/suite-$r.txt" 2>>"$DIR/suite-$r.err"
    done
    echo "round $r/$ROUNDS done (CPUs $PCPU -> $CCPU)" >&2
done
python3 - "$DIR" "$ROUNDS" "$LIMIT" <<'PY'
import json, statistics, sys
d, rounds, limit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
ours, ci, suite, paired = {}, {}, {}, {}
for r in range(1, rounds + 1):
    for p in json.load(open(f"{d}/ours-{r}/results.json"))["overhead"]["points"]:
        s = p["spec"]
        if s["experiment"] != "msg.throughput":
            continue
        k = dict(s["params"])
        cap = "messages" if k["capacity"] == "1048576" else k["capacity"]
        key = (k["impl"], k["pattern"], cap, k["placement"])
        ours.setdefault(key, []).append(p["summary"]["median"])
        ci[key] = (p["summary"]["ci_low"], p["summary"]["ci_high"])
    harness = {}
    for line in open(f"{d}/suite-{r}.txt"):
        impl, pattern, cap, scenario, ns, timer = line.split()
        key = (impl, pattern, cap, scenario)
        if timer == "suite":
            suite.setdefault(key, []).append(float(ns))
        else:
            harness[key] = float(ns)
    for key, ns in harness.items():
        paired.setdefault(key, []).append(ns / suite[key][-1])
status = 0
print(f"{'case (impl/pattern/capacity/placement)':40} {'ours ns/msg':>11} {'our 95% CI (last run)':>22} "
      f"{'suite ns/msg':>12} {'diff %':>7} {'paired %':>9}")
for key in sorted(suite):
    if key not in ours:
        continue
    o, s = statistics.median(ours[key]), statistics.median(suite[key])
    lo, hi = ci[key]
    diff = 100 * (o - s) / s
    far = abs(diff) > limit
    status |= far
    pair = 100 * (statistics.median(paired[key]) - 1) if key in paired else float("nan")
    print(f"{'/'.join(key):40} {o:11.2f} {f'[{lo:.2f}, {hi:.2f}]':>22} {s:12.2f} {diff:+7.1f} {pair:+9.1f}"
          f"{'  > ±%g%%' % limit if far else ''}")
# The order of the crates in each setting, where our CIs separate them.
settings = sorted({k[1:] for k in suite if k in ours})
for setting in settings:
    crates = [k[0] for k in suite if k[1:] == setting and k in ours]
    for i, a in enumerate(crates):
        for b in crates[i + 1:]:
            (alo, ahi), (blo, bhi) = ci[(a,) + setting], ci[(b,) + setting]
            if ahi < blo or bhi < alo:
                ours_faster = statistics.median(ours[(a,) + setting]) < statistics.median(ours[(b,) + setting])
                suite_faster = statistics.median(suite[(a,) + setting]) < statistics.median(suite[(b,) + setting])
                if ours_faster != suite_faster:
                    status = 1
                    print(f"order swapped in {'/'.join(setting)}: {a} vs {b}")
print(f"(medians over {rounds} alternated rounds; files in {d})")
sys.exit(status)
PY
