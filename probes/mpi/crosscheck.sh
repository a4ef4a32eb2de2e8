#!/usr/bin/env bash
# Cross-check of the mpi runtime against the OSU Micro-Benchmarks' method: MPI ping-pong round
# trip, MPI_Barrier and MPI_Allreduce (8 B and 1 MiB of MPI_FLOAT, MPI_SUM) on 2 ranks, measured by
# `overhead run --runtime mpi` and, right after each run, by probes/mpi/crosscheck/osu_method.c (our own
# program that times the loops of OMB 7.2's osu_latency, osu_barrier and osu_allreduce; see its header)
# with each rank pinned to the CPU the overhead record names for that rank. Prints both medians and their
# difference; exits 1 when one differs by more than LIMIT percent (default 10).
#
#   probes/mpi/crosscheck.sh                  uses target/release/overhead (cargo build --release first)
#   OVERHEAD=/path/to/overhead LIMIT=10 COUNT=3 ROUNDS=5 probes/mpi/crosscheck.sh
#   OSU_ONLY=1 CPUS=0,1 probes/mpi/crosscheck.sh     only the OSU side, on CPUS (no overhead binary needed)
#
# Units: overhead's medians are ns per operation (a ping-pong point is one ROUND TRIP); osu_method prints
# µs, and its latency is HALF a round trip (OMB's convention), so it is doubled here. osu_method's value is
# a mean over OMB's default 10000 (latency) or 1000/100 (collectives) timed iterations per run; the median
# is taken over its ROUNDS × COUNT runs. The collectives' value is OMB's: the mean over the ranks of each
# rank's mean.
#
# Needs mpicc and mpirun (Open MPI; --allow-run-as-root is added for root), taskset, jq and awk.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

# The record's point names, one per compared quantity. Change them here if the mpi runtime names differ.
P_PINGPONG=${P_PINGPONG:-mpi.pingpong/runtime:mpi/payload:8/placement:other_core}   # ns per round trip, 8 B
P_BARRIER=${P_BARRIER:-mpi.barrier/runtime:mpi/bytes:0/ranks:2}                            # ns per barrier
P_ALLREDUCE_SMALL=${P_ALLREDUCE_SMALL:-mpi.allreduce/runtime:mpi/bytes:8/ranks:2}  # ns per allreduce
P_ALLREDUCE_LARGE=${P_ALLREDUCE_LARGE:-mpi.allreduce/runtime:mpi/bytes:1048576/ranks:2}
ONLY=${ONLY:-mpi.pingpong,mpi.barrier,mpi.allreduce}
RANKS=${RANKS:-2}          # ranks of every compared point (ping-pong is always 2)
SMALL=${SMALL:-8}          # bytes of P_PINGPONG and P_ALLREDUCE_SMALL
LARGE=${LARGE:-1048576}    # bytes of P_ALLREDUCE_LARGE

OVERHEAD=${OVERHEAD:-$root/target/release/overhead}
LIMIT=${LIMIT:-10}
COUNT=${COUNT:-3}
ROUNDS=${ROUNDS:-5}
OSU_ONLY=${OSU_ONLY:-0}
CPUS=${CPUS:-0,1}          # OSU_ONLY: rank r runs on the r-th of these
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mpirun_args=(-np "$RANKS" --bind-to none)
[ "$(id -u)" = 0 ] && mpirun_args+=(--allow-run-as-root)
"$MPICC" -O2 -o "$tmp/osu_method" "$root/probes/mpi/crosscheck/osu_method.c"

# Rank r of the job runs on the (r mod n)-th of the n CPUs given, as the overhead record lists them.
cat >"$tmp/pin.sh" <<'EOF'
#!/bin/sh
cpus=$1; shift
r=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-0}}}
n=$(echo "$cpus" | tr ',' '\n' | wc -l)
exec taskset -c "$(echo "$cpus" | tr ',' '\n' | sed -n "$((r % n + 1))p")" "$@"
EOF
chmod +x "$tmp/pin.sh"

osu() { # cpus, osu_method arguments… → the value of the last line, in µs
  "$MPIRUN" "${mpirun_args[@]}" "$tmp/pin.sh" "$1" "$tmp/osu_method" "${@:2}" -p 4 </dev/null |
    awk '!/^#/ && NF {v = $NF} END {if (v == "") exit 1; print v}'
}
point() { # record, name → "median cpu,cpu,…"
  jq -r --arg n "$2" '.overhead.points[] | select(.name == $n) |
    "\(.summary.median) \(.spec.cpus | map(tostring) | join(","))"' "$1"
}
need_point() { # record, name → "median cpus", or a message and exit 2
  local line; line=$(point "$1" "$2")
  if [ -z "$line" ]; then
    echo "crosscheck: point $2 is not in $1; points there:" >&2
    jq -r '.overhead.points[].name' "$1" | grep '^mpi\.' | sed 's/^/  /' >&2
    exit 2
  fi
  echo "$line"
}

# The two sides run alternately, ROUNDS times (A B A B …), so that a slow phase of a shared host falls on
# both rather than on whichever ran first. Each line of the files: key value_ns.
: >"$tmp/overhead.txt"
: >"$tmp/osu.txt"
for round in $(seq "$ROUNDS"); do
  if [ "$OSU_ONLY" = 1 ]; then
    pp_cpus=$CPUS; bar_cpus=$CPUS; ars_cpus=$CPUS; arl_cpus=$CPUS
  else
    "$OVERHEAD" run --runtime mpi --only "$ONLY" --out "$tmp/run$round" >/dev/null 2>"$tmp/run.log" ||
      { cat "$tmp/run.log" >&2; exit 2; }
    record="$tmp/run$round/results.json"
    read -r m pp_cpus < <(need_point "$record" "$P_PINGPONG"); echo "pingpong $m" >>"$tmp/overhead.txt"
    read -r m bar_cpus < <(need_point "$record" "$P_BARRIER"); echo "barrier $m" >>"$tmp/overhead.txt"
    read -r m ars_cpus < <(need_point "$record" "$P_ALLREDUCE_SMALL"); echo "ar_small $m" >>"$tmp/overhead.txt"
    read -r m arl_cpus < <(need_point "$record" "$P_ALLREDUCE_LARGE"); echo "ar_large $m" >>"$tmp/overhead.txt"
  fi
  for _ in $(seq "$COUNT"); do
    # osu_latency reports half a round trip in µs: × 2 × 1000 → ns per round trip
    echo "pingpong $(osu "$pp_cpus" latency -m "$SMALL:$SMALL" | awk '{print $1 * 2000}')" >>"$tmp/osu.txt"
    echo "barrier $(osu "$bar_cpus" barrier | awk '{print $1 * 1000}')" >>"$tmp/osu.txt"
    echo "ar_small $(osu "$ars_cpus" allreduce -m "$SMALL:$SMALL" | awk '{print $1 * 1000}')" >>"$tmp/osu.txt"
    echo "ar_large $(osu "$arl_cpus" allreduce -m "$LARGE:$LARGE" | awk '{print $1 * 1000}')" >>"$tmp/osu.txt"
  done
done

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
range() { sort -g | awk 'NR==1{lo=$1} {hi=$1} END {printf "%.1f – %.1f\n", lo, hi}'; }
of() { awk -v k="$1" '$1 == k {print $2}' "$2"; }

status=0
report() { # label, key
  local o; o=$(of "$2" "$tmp/osu.txt" | median)
  if [ "$OSU_ONLY" = 1 ]; then
    printf "%-36s osu_method %10.1f ns (%s)\n" "$1" "$o" "$(of "$2" "$tmp/osu.txt" | range)"
    return
  fi
  awk -v l="$1" -v m="$(of "$2" "$tmp/overhead.txt" | median)" -v or="$(of "$2" "$tmp/overhead.txt" | range)" \
    -v g="$o" -v r="$(of "$2" "$tmp/osu.txt" | range)" -v limit="$LIMIT" 'BEGIN {
    d = (m / g - 1) * 100
    printf "%-36s overhead %10.1f ns (%s)   osu_method %10.1f ns (%s)   %+6.1f%%%s\n",
      l, m, or, g, r, d, (d > limit || d < -limit) ? "  > ±" limit "%" : ""
    exit (d > limit || d < -limit) ? 1 : 0 }' || status=1
}
if [ "$OSU_ONLY" = 1 ]; then
  echo "CPUs $CPUS (rank r on the r-th), $RANKS ranks; osu_method: median of $ROUNDS × $COUNT runs (min – max)"
else
  echo "CPUs per point from the record (rank r on the r-th; ping-pong: $pp_cpus), $RANKS ranks, $ROUNDS alternating"
  echo "rounds; overhead: median of the rounds' medians (min – max); osu_method: median of $ROUNDS × $COUNT runs"
fi
report "ping-pong round trip, $SMALL B" pingpong
report "MPI_Barrier, $RANKS ranks" barrier
report "MPI_Allreduce $SMALL B, $RANKS ranks" ar_small
report "MPI_Allreduce $LARGE B, $RANKS ranks" ar_large
exit $status
