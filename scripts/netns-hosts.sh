#!/usr/bin/env bash
# Simulate N hosts on one machine with network namespaces, for `overhead run --hosts` and its tests.
#
# Usage:
#   scripts/netns-hosts.sh [-n N] [--prefix P] -- COMMAND [ARGS...]
#   scripts/netns-hosts.sh --cleanup-stale P
#
# Creates N "host" network namespaces (N >= 2, default 2), named P-h0 .. P-h<N-1>, and one "switch"
# namespace P-sw holding a Linux bridge br0. Each host namespace gets loopback up and one veth named
# ovh0 (the same name in every host, so MPICH's `-iface ovh0` works) with address 10.R.0.<k+1>/24 for
# host k and no default route; the veth's peer (h<k>) is in the switch namespace, attached to br0. The
# veth pairs are created directly inside their namespaces, so nothing ever appears in the root
# namespace. P defaults to ovh-<pid of this script> and R is derived from that pid, so runs at once do
# not collide (the subnet exists only inside the namespaces, so it cannot clash with the machine's).
#
# It writes an rsh-style launch agent into a temporary directory (`AGENT [-options] HOST COMMAND...`
# runs COMMAND with sh -c inside HOST's namespace; an unknown HOST is an error with exit status 255,
# as ssh gives for an unreachable host), then runs COMMAND inside host 0's namespace with:
#   OVERHEAD_HOSTS                host addresses, comma-joined, host 0 first (10.R.0.1,10.R.0.2,...)
#   OVERHEAD_LAUNCH_AGENT         the agent's path
#   OVERHEAD_HOST_SUBNET          10.R.0.0/24
#   OVERHEAD_LAUNCHER_ARGS        OpenMPI mpirun arguments, one per line: --mca plm_rsh_agent AGENT
#                                 --mca btl self,vader,tcp --mca btl_tcp_if_include SUBNET
#                                 --mca oob_tcp_if_include SUBNET
#   OVERHEAD_LAUNCHER_ARGS_MPICH  MPICH mpiexec arguments, one per line: -launcher rsh
#                                 -launcher-exec AGENT -iface ovh0
# and exits with COMMAND's exit status. On exit, error, INT, TERM or HUP it stops whatever still runs in
# its namespaces and removes the namespaces (which removes their veths and the bridge) and the
# temporary directory. It touches nothing outside the namespaces and the directory it creates. Each
# thing created or removed is reported on stderr, one line each. (A shell's background job starts with
# SIGINT ignored, and bash cannot trap a signal ignored from its start: stop such a run with TERM.)
#
# --cleanup-stale P removes what a killed run with prefix P left behind (namespaces named P-h<k> and
# P-sw, or P-<anything>-h<k> and P-<anything>-sw, so `--cleanup-stale ovh` clears every run that used
# the default prefix, and temporary directories $TMPDIR/P*.netns-hosts.* holding a launch agent); a
# run whose prefix ends in -PID is skipped while PID is still this script.
#
# Needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN) and iproute2's `ip`. Where namespaces cannot be created
# it exits with status 77, which tests read as "cannot simulate hosts here". Usage errors exit with 2.
set -euo pipefail

me=netns-hosts
iface=ovh0    # every host's veth has this name inside its own namespace
bridge=br0    # the switch namespace's bridge

usage() {
  echo "usage: $0 [-n N] [--prefix P] -- COMMAND [ARGS...]" >&2
  echo "       $0 --cleanup-stale P" >&2
  exit 2
}
say() { echo "$me: $*" >&2; }
die() { say "$*"; exit 1; }
cannot() {
  say "cannot simulate hosts here: $*"
  exit 77
}
valid_prefix() {
  [[ $1 =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] && [ ${#1} -le 64 ] ||
    { say "bad prefix '$1': use letters, digits, '_', '.' and '-' (at most 64)"; exit 2; }
}

# Stops every process still in the namespaces given (TERM, then KILL after 2 s), then deletes them.
remove_netns() {
  local ns pids i
  pids=$(for ns in "$@"; do "$ip" netns pids "$ns" 2>/dev/null || true; done)
  if [ -n "$pids" ]; then
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    for i in 1 2 3 4 5 6 7 8 9 10; do
      pids=$(for ns in "$@"; do "$ip" netns pids "$ns" 2>/dev/null || true; done)
      [ -z "$pids" ] && break
      sleep 0.2
    done
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
  fi
  for ns in "$@"; do
    if "$ip" netns del "$ns" 2>/dev/null; then
      say "removed namespace $ns"
    else
      say "could not remove namespace $ns"
    fi
  done
}

tmp_root=${TMPDIR:-/tmp}
n=2
prefix=
stale=
while [ $# -gt 0 ]; do
  case $1 in
    -n) [ $# -ge 2 ] || usage; n=$2; shift 2 ;;
    -n*) n=${1#-n}; shift ;;
    --prefix) [ $# -ge 2 ] || usage; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --cleanup-stale) [ $# -ge 2 ] || usage; stale=$2; shift 2 ;;
    --cleanup-stale=*) stale=${1#--cleanup-stale=}; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    --) shift; break ;;
    *) usage ;;
  esac
done

ip=$(command -v ip || true)
[ -n "$ip" ] || cannot "iproute2's 'ip' command was not found"

if [ -n "$stale" ]; then
  valid_prefix "$stale"
  [ $# -eq 0 ] || usage
  names=$("$ip" netns list 2>/dev/null | awk '{print $1}') ||
    cannot "could not list network namespaces"
  # A run whose prefix ends in -PID (as the default ovh-PID does) is left alone while PID is still
  # this script, so that `--cleanup-stale ovh` does not pull the hosts from under a live run.
  live() {
    [[ $1 =~ -([0-9]+)$ ]] && tr '\0' ' ' <"/proc/${BASH_REMATCH[1]}/cmdline" 2>/dev/null |
      grep -q netns-hosts
  }
  esc=$(printf '%s' "$stale" | sed 's/[.]/[.]/g')
  found=0
  stale_ns=()
  for ns in $names; do
    if [[ $ns =~ ^(${esc}(-.+)?)-(h[0-9]+|sw)$ ]]; then
      if live "${BASH_REMATCH[1]}"; then
        say "left namespace $ns alone: its run is still going"
        found=1
        continue
      fi
      stale_ns+=("$ns")
      found=1
    fi
  done
  [ ${#stale_ns[@]} -eq 0 ] || remove_netns "${stale_ns[@]}"
  for d in "$tmp_root/$stale"*.netns-hosts.*; do
    if [ -d "$d" ] && [ -f "$d/launch-agent" ]; then
      b=${d##*/}
      if live "${b%%.netns-hosts.*}"; then
        say "left directory $d alone: its run is still going"
        found=1
        continue
      fi
      rm -rf -- "$d" && say "removed directory $d"
      found=1
    fi
  done
  [ "$found" = 1 ] || say "nothing left by a run with prefix $stale"
  exit 0
fi

[ $# -gt 0 ] || usage
[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ] && [ "$n" -le 254 ] ||
  { say "-n wants a whole number of hosts from 2 to 254, not '$n'"; exit 2; }
if [ -z "$prefix" ]; then
  prefix=ovh-$$
fi
valid_prefix "$prefix"
r=$(( $$ % 200 + 16 ))   # subnet 10.R.0.0/24, R in 16..215
subnet=10.$r.0.0/24
switch_ns=$prefix-sw
host_ns=()
hosts=()
for ((k = 0; k < n; k++)); do
  host_ns+=("$prefix-h$k")
  hosts+=("10.$r.0.$((k + 1))")
done

existing=$("$ip" netns list 2>/dev/null | awk '{print $1}') || true
for ns in "$switch_ns" "${host_ns[@]}"; do
  if grep -qxF -- "$ns" <<<"$existing" || [ -e "/run/netns/$ns" ]; then
    die "namespace $ns already exists (left by a killed run? $0 --cleanup-stale $prefix removes it)"
  fi
done

created=()
tmp=
child=
cleaning=0
cleanup() {
  local status=$?
  [ "$cleaning" = 0 ] || return 0
  cleaning=1
  trap '' INT TERM HUP
  local i rev=()
  # Host namespaces first, the switch last.
  for ((i = ${#created[@]} - 1; i >= 0; i--)); do
    rev+=("${created[i]}")
  done
  [ ${#rev[@]} -eq 0 ] || remove_netns "${rev[@]}"
  if [ -n "$tmp" ] && [ -d "$tmp" ]; then
    rm -rf -- "$tmp" && say "removed directory $tmp"
  fi
  exit "$status"
}
on_signal() {
  local sig=$1 code=$2 i
  trap '' INT TERM HUP
  say "caught SIG$sig: stopping the command and removing the hosts"
  if [ -n "$child" ]; then
    # A background job ignores SIGINT, so the command gets TERM (and KILL if it lingers).
    kill -TERM "$child" 2>/dev/null || true
    for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
      kill -0 "$child" 2>/dev/null || break
      sleep 0.25
    done
    kill -KILL "$child" 2>/dev/null || true
  fi
  exit "$code"
}
trap cleanup EXIT
trap 'on_signal INT 130' INT
trap 'on_signal TERM 143' TERM
trap 'on_signal HUP 129' HUP

add_netns() {
  local ns=$1 what=$2 err
  if ! err=$("$ip" netns add "$ns" 2>&1); then
    cannot "'ip netns add $ns' failed (needs root or CAP_SYS_ADMIN): $err"
  fi
  created+=("$ns")
  "$ip" -n "$ns" link set lo up || cannot "could not set up loopback in $ns"
  say "created namespace $ns ($what)"
}

add_netns "$switch_ns" "switch, bridge $bridge"
err=$("$ip" -n "$switch_ns" link add "$bridge" type bridge 2>&1) ||
  cannot "could not create a bridge in $switch_ns: $err"
"$ip" -n "$switch_ns" link set "$bridge" addrgenmode none
"$ip" -n "$switch_ns" link set "$bridge" up
for ((k = 0; k < n; k++)); do
  ns=${host_ns[k]}
  add_netns "$ns" "host $k, ${hosts[k]}/24 on $iface"
  err=$("$ip" link add "$iface" netns "$ns" type veth peer name "h$k" netns "$switch_ns" 2>&1) ||
    cannot "could not create a veth pair between $ns and $switch_ns: $err"
  # No IPv6 link-local address: the veth carries only its IPv4 address.
  "$ip" -n "$ns" link set "$iface" addrgenmode none
  "$ip" -n "$switch_ns" link set "h$k" addrgenmode none
  "$ip" -n "$switch_ns" link set "h$k" master "$bridge"
  "$ip" -n "$switch_ns" link set "h$k" up
  "$ip" -n "$ns" addr add "${hosts[k]}/24" dev "$iface"
  "$ip" -n "$ns" link set "$iface" up
done

tmp=$(mktemp -d "$tmp_root/$prefix.netns-hosts.XXXXXX")
agent=$tmp/launch-agent
{
  echo '#!/bin/sh'
  echo "# rsh-style launch agent written by netns-hosts.sh: AGENT [-options] [USER@]HOST COMMAND..."
  echo "# runs COMMAND with sh -c in HOST's network namespace."
  cat <<'EOF'
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; break ;;
    -[BbcDEeFIiJLlmOopQRSWw]) [ $# -ge 2 ] || break; shift 2 ;;
    -?*) shift ;;
    *) break ;;
  esac
done
host=${1:-}
host=${host#*@}
[ $# -gt 0 ] && shift
[ -n "$host" ] || { echo "launch-agent: no host given" >&2; exit 255; }
[ $# -gt 0 ] || { echo "launch-agent: no command given for host $host" >&2; exit 255; }
case $host in
EOF
  for ((k = 0; k < n; k++)); do
    echo "  '${hosts[k]}') ns='${host_ns[k]}' ;;"
  done
  echo "  *) echo \"launch-agent: ssh: connect to host \$host: not one of the simulated hosts ($(IFS=,; echo "${hosts[*]}"))\" >&2; exit 255 ;;"
  echo "esac"
  echo "exec '$ip' netns exec \"\$ns\" sh -c \"\$*\""
} >"$agent"
chmod 755 "$agent"
say "created directory $tmp (launch agent $agent)"

OVERHEAD_HOSTS=$(IFS=,; echo "${hosts[*]}")
OVERHEAD_LAUNCH_AGENT=$agent
OVERHEAD_HOST_SUBNET=$subnet
OVERHEAD_LAUNCHER_ARGS=$(printf '%s\n' --mca plm_rsh_agent "$agent" --mca btl self,vader,tcp \
  --mca btl_tcp_if_include "$subnet" --mca oob_tcp_if_include "$subnet")
OVERHEAD_LAUNCHER_ARGS_MPICH=$(printf '%s\n' -launcher rsh -launcher-exec "$agent" -iface "$iface")
export OVERHEAD_HOSTS OVERHEAD_LAUNCH_AGENT OVERHEAD_HOST_SUBNET OVERHEAD_LAUNCHER_ARGS \
  OVERHEAD_LAUNCHER_ARGS_MPICH

# In the background so that a signal is handled at once rather than when the command ends; the
# explicit <&0 keeps the command's stdin (a background job's would otherwise be /dev/null).
"$ip" netns exec "${host_ns[0]}" "$@" <&0 &
child=$!
status=0
wait "$child" || status=$?
child=
exit "$status"
