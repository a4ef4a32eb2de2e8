#!/usr/bin/env bash
# Builds the Go and Java probes into a temporary directory and runs every priority-1 point of each
# runtime once in quick mode, as the orchestrator would launch it (probes/README.md "Launching"):
# pinned with taskset to one CPU (two for other_core), GOMAXPROCS = distinct CPUs, the Java flags.
# Each point must end in a `batches` line (or, for java-virtual on a JDK < 21, the expected error).
# One line per point: (median(test) - median(control)) / N / per in ns.
#
#   probes/selftest.sh                 Go from PATH (or /usr/local/go/bin), java/javac from PATH
#   JAVA_EXTRA=/path/to/jdk25/bin/java probes/selftest.sh    also run the Java points on that JVM
#   GO=/path/to/go JAVA=… JAVAC=… CPU=0 OTHER_CPU=1 probes/selftest.sh
#
# Exit status: 0 when every point answered as expected, 1 otherwise. Needs bash, awk, taskset.
set -u
here=$(cd "$(dirname "$0")" && pwd)
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
JAVA=${JAVA:-java}
JAVAC=${JAVAC:-javac}
JAVA_EXTRA=${JAVA_EXTRA:-}
if [ -z "$JAVA_EXTRA" ] && [ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]; then
    JAVA_EXTRA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
fi
allowed=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //')
CPU=${CPU:-$(echo "$allowed" | tr ',' '\n' | head -1 | cut -d- -f1)}
CPU=${CPU:-0}
OTHER_CPU=${OTHER_CPU:-$(( CPU + 1 ))}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

echo "building into $tmp"
(cd "$here/go" && "$GO" build -o "$tmp/probe-go" .) || { echo "FAIL: go build"; exit 1; }
"$JAVAC" --release 17 -d "$tmp/classes" $(find "$here/java/src" -name '*.java') || { echo "FAIL: javac --release 17"; exit 1; }

# The harness settings of a quick run (src/harness/config.rs).
harness='{"target_batch_ns":500000.0,"warmup":1,"repetitions":3,"max_batch_ops":4294967296,"noisy_fraction":0.05,"mode":"quick"}'

# job EXPERIMENT RUNTIME PARAMS CPUS PLACEMENT -> the job's JSON
job() {
    local placement=null
    [ -n "$5" ] && placement="\"$5\""
    printf '{"v":2,"spec":{"experiment":"%s","runtime":"%s","params":%s,"cpus":%s,"placement":%s},"time_source":null,"harness":%s}' \
        "$1" "$2" "$3" "$4" "$placement" "$harness"
}

# summary LINE -> "X ns (N=…, per=…)" from a batches line, by awk on its compact form
summary() {
    echo "$1" | awk '
        function arr(key,   s, a) { s = $0; sub(".*\"" key "\":\\[", "", s); sub("\\].*", "", s); return s }
        function num(key,   s) { s = $0; sub(".*\"" key "\":", "", s); sub("[,}].*", "", s); return s + 0 }
        function median(list,   v, n, i, j, t) {
            n = split(list, v, ",")
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
            return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        }
        { n = num("batch_ops"); per = num("per")
          printf "%10.2f ns  (N=%d, per=%d)", (median(arr("test_ns")) - median(arr("control_ns"))) / n / per, n, per }'
}

# point LABEL EXPECT CPUSET COMMAND… : runs one probe, checks its last line, prints the summary.
# EXPECT is "batches" or "error:<text the error must contain>".
point() {
    local label=$1 expect=$2 cpuset=$3
    shift 3
    local out last
    out=$(taskset -c "$cpuset" "$@" 2>"$tmp/stderr")
    last=$(printf '%s\n' "$out" | tail -n 1)
    if [ "$expect" = batches ] && [[ $last == '{"type":"batches"'* ]]; then
        printf '%-72s %s\n' "$label" "$(summary "$last")"
    elif [[ $expect == error:* ]] && [[ $last == '{"type":"error"'* ]] && [[ $last == *"${expect#error:}"* ]]; then
        printf '%-72s expected error: %s\n' "$label" "$(echo "$last" | sed 's/.*"message":"//; s/"}$//; s/\\u2265/>=/g')"
    else
        printf '%-72s FAIL: %s %s\n' "$label" "$last" "$(head -c 300 "$tmp/stderr")"
        failed=1
    fi
}

distinct() { echo "$1" | tr -d '[] ' | tr ',' '\n' | sort -u | wc -l | tr -d ' '; }

# Priority-1 points: experiment|params|cpus|placement, with @K (spawn kind) and @M (switch mechanism)
# filled per runtime. Souvatzis's same-CPU points: cpus [home] or [home, home].
C=$CPU
points=(
    "base.loop|[]|[$C]|"
    "base.call|[]|[$C]|"
    "msg.call|[[\"new_task\",\"no\"]]|[$C]|"
    "msg.call|[[\"new_task\",\"yes\"]]|[$C]|"
    "spawn.create|[[\"kind\",\"@K\"]]|[$C]|"
    "sync.sem|[[\"op\",\"p\"]]|[$C]|"
    "sync.sem|[[\"op\",\"v\"]]|[$C]|"
    "sync.sem|[[\"op\",\"pair\"]]|[$C]|"
    "sync.sem|[[\"op\",\"switch\"]]|[$C,$C]|same_cpu"
    "msg.async|[]|[$C]|"
    "msg.switch|[[\"placement\",\"same_cpu\"]]|[$C,$C]|same_cpu"
    "msg.rendezvous|[[\"placement\",\"same_cpu\"]]|[$C,$C]|same_cpu"
    "sched.switch|[[\"mechanism\",\"@M\"],[\"placement\",\"same_cpu\"]]|[$C,$C]|same_cpu"
)

java_flags=(-XX:+UseSerialGC -Xms256m -Xmx256m -XX:+DisplayVMOutputToStderr -XX:CompileCommand=quiet
    '-XX:CompileCommand=dontinline,overhead.probe.Callee*::*')

# run_runtime RUNTIME KIND MECHANISM [JAVA]: every point of one runtime.
run_runtime() {
    local rt=$1 kind=$2 mech=$3 java=${4:-} list=("${points[@]}") expect=batches
    if [ "$rt" = java-platform ] && [ "$(nproc)" -ge 2 ]; then
        list+=("sched.switch|[[\"mechanism\",\"park\"],[\"placement\",\"other_core\"]]|[$C,$OTHER_CPU]|other_core")
    fi
    if [ "$rt" = java-virtual ]; then
        local feature
        feature=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
        [ "${feature%%.*}" -lt 21 ] && expect="error:virtual threads need JDK"
    fi
    echo "== $rt${java:+ on $("$java" -version 2>&1 | head -1)}"
    for entry in "${list[@]}"; do
        entry=${entry//@K/$kind}
        entry=${entry//@M/$mech}
        IFS='|' read -r exp params cpus placement <<<"$entry"
        local j n cpuset
        j=$(job "$exp" "$rt" "$params" "$cpus" "$placement")
        n=$(distinct "$cpus")
        cpuset=$(echo "$cpus" | tr -d '[] ')
        local label
        label="$exp/runtime:$rt$(echo "$params" | sed -E 's/\["([^"]*)","([^"]*)"\]/\/\1:\2/g; s/[][,]//g')"
        if [ "$rt" = go ]; then
            point "$label" batches "$cpuset" env GOMAXPROCS="$n" "$tmp/probe-go" --job "$j"
        else
            point "$label" "$expect" "$cpuset" "$java" "${java_flags[@]}" -Djdk.virtualThreadScheduler.parallelism="$n" \
                -cp "$tmp/classes" overhead.probe.Main --job "$j"
        fi
    done
}

v=$("$tmp/probe-go" --version) && [ "$v" = "overhead-probe-go 1" ] || { echo "FAIL: go --version: $v"; failed=1; }
v=$("$JAVA" -cp "$tmp/classes" overhead.probe.Main --version) && [ "$v" = "overhead-probe-java 1" ] || { echo "FAIL: java --version: $v"; failed=1; }

run_runtime go task gosched
for java in "$JAVA" ${JAVA_EXTRA:+"$JAVA_EXTRA"}; do
    run_runtime java-platform thread park "$java"
    run_runtime java-virtual task yield "$java"
done
[ $failed = 0 ] && echo "selftest: all points answered as expected" || echo "selftest: FAILED"
exit $failed
