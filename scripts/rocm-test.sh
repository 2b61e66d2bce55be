#!/usr/bin/env bash
# The rocm backend's proof on a machine with an AMD GPU and ROCm: the one command to run there first.
# From the repository root: builds (make; bin/hip-vector where a HIP compiler is found), then with
# the app (bin/hip-vector: a vector add and kernels that update memory in place):
#   apps     - the app unprofiled and under kernel replay (3 counter groups, every group of a dispatch
#              in one run): the app's own output equal to the unprofiled run's (its in-place results
#              checked against the host), the records: every dispatch has passes 0..P-1 once each
#              with P the planned passes of its agent, SQ_WAVES (in every group) equal across the
#              passes of a dispatch, no fatal, no decline;
#   passes   - `gorocprof plan`'s pass count of each agent equal to the records';
#   compare  - `gorocprof compare`: kernel replay equal to application replay on the counters;
#   rocprofv3 - where rocprofv3 is installed, its own run of the same groups, totals side by side;
#   trace    - a --sys-trace run (with the first group): every traced domain has records and every
#              dispatch and copy carries the correlation id of a HIP call; where rocprofv3 is
#              installed, its own --sys-trace run of the same app, record counts per domain side by
#              side (HIP, marker, memory copy and kernel dispatch counts equal; HSA counts shown only:
#              a HIP runtime's signal waits vary with timing).
# tool/rocm/README.md ("scripts/rocm-test.sh") shows the expected output. --emulate runs the same
# checks with no GPU, over the SDK emulator and bin/sim-demo (scripts/tests/rocm-test.sh, make test).
# Writes $OUT/rocm-test.md (the results) and $OUT/rocm-test.log. Exit 0: every check passed; 1: one
# failed; 2: bad arguments.
set -uo pipefail

usage() {
    cat >&2 <<'EOF'
usage: scripts/rocm-test.sh [options]
  --rocm-root DIR   the ROCm root holding rocprofiler-sdk (default $ROCM_PATH, else /opt/rocm)
  --app CMD         the app to profile (default bin/hip-vector; --emulate: bin/sim-demo)
  --sections LIST   among: apps passes compare rocprofv3 trace (default: all, comma- or space-separated)
  --out DIR         where the results go (default out/rocm-test)
  --emulate         no GPU: the SDK emulator (lib/gorocprof/rocm-emulator) and bin/sim-demo
  --no-build        use bin/ and lib/ as they are
  --check-run FILE  only check the records of a run already made (its <name>_results.json)
EOF
    exit 2
}

die_usage() { echo "rocm-test: $*" >&2; usage; }

ROOT=$(pwd)
rocm_root=${ROCM_PATH:-/opt/rocm}
app=""
sections="apps passes compare rocprofv3 trace"
out=$ROOT/out/rocm-test
emulate=0
build=1
check_run=""
while [ $# -gt 0 ]; do
    case "$1" in
        --rocm-root) [ $# -ge 2 ] || die_usage "--rocm-root needs a directory"; rocm_root=$2; shift 2 ;;
        --app) [ $# -ge 2 ] || die_usage "--app needs a command"; app=$2; shift 2 ;;
        --sections) [ $# -ge 2 ] || die_usage "--sections needs a list"; sections=${2//,/ }; shift 2 ;;
        --out) [ $# -ge 2 ] || die_usage "--out needs a directory"; out=$2; shift 2 ;;
        --emulate) emulate=1; build=0; shift ;;
        --no-build) build=0; shift ;;
        --check-run) [ $# -ge 2 ] || die_usage "--check-run needs a results file"; check_run=$2; shift 2 ;;
        -h|--help) usage ;;
        *) die_usage "unknown argument '$1'" ;;
    esac
done
for s in $sections; do
    case "$s" in apps|passes|compare|rocprofv3|trace) ;; *) die_usage "unknown section '$s' (expected apps, passes, compare, rocprofv3, trace)" ;; esac
done
if [ -n "$check_run" ] && [ ! -f "$check_run" ]; then
    die_usage "--check-run $check_run: no such file"
fi

G0="SQ_WAVES SQ_INSTS_VALU"
G1="SQ_WAVES SQ_INSTS_SALU"
G2="SQ_WAVES SQ_INSTS_VMEM_WR"
# check_records FILE: the record checks of the apps section on a run's results JSON. Prints one line
# per check; exit 1 when one fails.
check_records() {
    python3 - "$1" <<'PY'
import json, sys
from collections import defaultdict
doc = json.load(open(sys.argv[1]))["rocprofiler-sdk-tool"][0]
meta = doc["metadata"]
g = meta.get("gorocprof", {})
plan = {p["agent_index"]: len(p["passes"]) for p in meta.get("gorocprof_plan", [])}
gpus = [a for a in doc["agents"] if a.get("type") == 2]
gpus.sort(key=lambda a: a.get("logical_node_type_id", 0))
index_of = {a["id"]["handle"]: i for i, a in enumerate(gpus)}
names = {c["id"]["handle"]: c["name"] for c in doc["counters"]}
passes = defaultdict(list)       # dispatch -> [pass]
agent = {}
values = defaultdict(dict)       # dispatch -> pass -> {counter: total}
for r in doc["callback_records"].get("counter_collection", []):
    info = r["dispatch_data"]["dispatch_info"]
    d = info["dispatch_id"]
    p = r.get("replay_pass", 0)
    passes[d].append(p)
    agent[d] = index_of.get(info["agent_id"]["handle"], -1)
    tot = defaultdict(float)
    for v in r["records"]:
        tot[names.get(v["counter_id"]["handle"], "?")] += v["value"]
    values[d][p] = tot
bad = []
if g.get("fatals"): bad.append("fatals: %s" % g["fatals"])
if g.get("declined", 0): bad.append("%d dispatches declined replay: %s" % (g["declined"], g.get("declines")))
for d, ps in sorted(passes.items()):
    want = list(range(plan.get(agent[d], 1)))
    if sorted(ps) != want:
        bad.append("dispatch %d (agent %d): passes %s, want %s" % (d, agent[d], sorted(ps), want))
    waves = {p: t["SQ_WAVES"] for p, t in values[d].items() if "SQ_WAVES" in t}
    if len(set(waves.values())) > 1:
        bad.append("dispatch %d: SQ_WAVES differs across passes: %s" % (d, waves))
per_agent = defaultdict(set)
for d in passes: per_agent[agent[d]].add(len(passes[d]))
if not passes: bad.append("no counter records")
summary = ", ".join("agent %d: %s passes" % (a, "/".join(map(str, sorted(n)))) for a, n in sorted(per_agent.items()))
if bad:
    for b in bad[:20]: print("FAIL records: " + b)
    sys.exit(1)
print("ok   records: %d dispatches, passes 0..P-1 once each (%s), SQ_WAVES equal across passes, no fatal, no decline" % (len(passes), summary))
for a, n in sorted(per_agent.items()): print("passes-of-agent %d %s" % (a, " ".join(map(str, sorted(n)))))
PY
}

if [ -n "$check_run" ]; then
    check_records "$check_run"
    exit $?
fi

if [ "$emulate" -eq 1 ]; then
    rocm_root=$ROOT/lib/gorocprof/rocm-emulator
    app=${app:-$ROOT/bin/sim-demo}
else
    app=${app:-$ROOT/bin/hip-vector}
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
LOG=$out/rocm-test.log
MD=$out/rocm-test.md
: >"$LOG"
printf '| check | result |\n| --- | --- |\n' >"$MD"
failed=0
result() { # NAME STATUS TEXT
    printf '%-5s %s: %s\n' "$2" "$1" "$3"
    printf '| %s | %s %s |\n' "$1" "$2" "$3" >>"$MD"
    [ "$2" = FAIL ] && failed=1
    return 0
}
want() { case " $sections " in *" $1 "*) return 0 ;; esac; return 1; }
GRP=$out/groups
gorocprof=$ROOT/bin/gorocprof
# shellcheck disable=SC2086 # the groups and the app are word lists on purpose
pmc_args() { echo --pmc $G0 --pmc $G1 --pmc $G2; }

if [ "$build" -eq 1 ]; then
    echo "== make (log: $LOG)"
    if ! make >>"$LOG" 2>&1; then
        result build FAIL "make failed: the last lines of $LOG"
        tail -n 30 "$LOG"
        exit 1
    fi
    result build ok "make"
fi
[ -x "$gorocprof" ] || { result build FAIL "$gorocprof is not built (run make)"; exit 1; }
[ -f "$rocm_root/lib/librocprofiler-sdk.so" ] || { result sdk FAIL "no $rocm_root/lib/librocprofiler-sdk.so (--rocm-root names the ROCm root)"; exit 1; }
read -r -a app_cmd <<<"$app"
[ -x "${app_cmd[0]}" ] || { result app FAIL "${app_cmd[0]} is not built (a HIP compiler: tool/examples/CMakeLists.txt)"; exit 1; }
rm -rf "$GRP" && mkdir -p "$GRP"
common=(--quiet --backend rocm --rocm-root "$rocm_root")

if want apps || want passes; then
    echo "== apps: ${app} unprofiled, then under kernel replay"
    "${app_cmd[@]}" >"$out/plain.out" 2>>"$LOG"
    plain=$?
    # shellcheck disable=SC2046
    "$gorocprof" "${common[@]}" $(pmc_args) --replay-mode kernel --kernel-replay-beta-enabled -f json csv \
        -d "$out/kernel" -o run -- "${app_cmd[@]}" >"$out/kernel.out" 2>>"$LOG"
    prof=$?
    if [ "$plain" -eq 0 ] && [ "$prof" -eq 0 ] && cmp -s "$out/plain.out" "$out/kernel.out"; then
        result results ok "the app's output under kernel replay equals its unprofiled run's ($(head -n 1 "$out/plain.out"))"
    else
        result results FAIL "exit $plain unprofiled, $prof profiled; outputs in $out/plain.out, $out/kernel.out"
    fi
    if check_records "$out/kernel/run_results.json" >"$out/records.txt" 2>>"$LOG"; then
        result records ok "$(grep '^ok' "$out/records.txt" | sed 's/^ok   records: //')"
    else
        result records FAIL "$(grep '^FAIL' "$out/records.txt" | head -n 3 | tr '\n' ';')"
    fi
fi

if want passes; then
    echo "== passes: gorocprof plan against the records"
    # shellcheck disable=SC2046
    "$gorocprof" plan --backend rocm --rocm-root "$rocm_root" $(pmc_args) >"$out/plan.txt" 2>>"$LOG"
    # shellcheck disable=SC2046
    "$gorocprof" plan --json --backend rocm --rocm-root "$rocm_root" $(pmc_args) >"$out/plan.json" 2>>"$LOG"
    ok=1
    while read -r _ a n; do
        # The records name an agent by the plan's agent_index, which plan --json gives beside its passes.
        p=$(python3 -c 'import json, sys
print(next((len(x["passes"]) for x in json.load(open(sys.argv[1])) if x["agent_index"] == int(sys.argv[2])), ""))' "$out/plan.json" "$a")
        [ "$p" = "$n" ] || ok=0
        echo "agent $a: plan $p, records $n" >>"$LOG"
    done < <(grep '^passes-of-agent' "$out/records.txt" 2>/dev/null)
    if [ "$ok" -eq 1 ] && grep -q '^passes-of-agent' "$out/records.txt" 2>/dev/null; then
        result passes ok "$(grep '^Agent' "$out/plan.txt" | tr '\n' ';' | sed 's/;$//'): as recorded"
    else
        result passes FAIL "plan ($out/plan.txt) and records ($out/records.txt) disagree"
    fi
fi

if want compare; then
    echo "== compare: kernel replay against application replay"
    # shellcheck disable=SC2046
    if "$gorocprof" compare --backend rocm --rocm-root "$rocm_root" $(pmc_args) -- "${app_cmd[@]}" >"$out/compare.txt" 2>>"$LOG" &&
        grep -q '^all [0-9]* values agree$' "$out/compare.txt"; then
        result compare ok "$(grep '^all' "$out/compare.txt")"
    else
        result compare FAIL "$(tail -n 3 "$out/compare.txt" | tr '\n' ';')"
    fi
fi

if want rocprofv3; then
    v3=$(command -v rocprofv3 || true)
    [ -z "$v3" ] && [ -x "$rocm_root/bin/rocprofv3" ] && v3=$rocm_root/bin/rocprofv3
    if [ -z "$v3" ]; then
        result rocprofv3 skipped "rocprofv3 is not installed (neither on PATH nor in $rocm_root/bin)"
    else
        echo "== rocprofv3: the same groups, side by side"
        # shellcheck disable=SC2046,SC2086
        "$v3" --pmc $G0 --pmc $G1 --pmc $G2 --replay-mode kernel --kernel-replay-beta-enabled --output-format json \
            -d "$out/rocprofv3" -o run -- "${app_cmd[@]}" >"$out/rocprofv3.out" 2>>"$LOG"
        v3rc=$?
        theirs=$(find "$out/rocprofv3" -name '*results.json' | head -n 1)
        if [ "$v3rc" -ne 0 ] || [ -z "$theirs" ]; then
            result rocprofv3 FAIL "rocprofv3 exited $v3rc without a results JSON (log: $LOG)"
        else
            python3 - "$out/kernel/run_results.json" "$theirs" >"$out/side-by-side.txt" <<'PY'
import json, sys
from collections import defaultdict
def totals(path):
    doc = json.load(open(path))["rocprofiler-sdk-tool"][0]
    names = {c["id"]["handle"]: c["name"] for c in doc["counters"]}
    t = defaultdict(float)
    for r in doc["callback_records"].get("counter_collection", []):
        for v in r["records"]: t[names.get(v["counter_id"]["handle"], "?")] += v["value"]
    return t
ours, theirs = totals(sys.argv[1]), totals(sys.argv[2])
print("%-16s %18s %18s" % ("counter", "gorocprof", "rocprofv3"))
for n in sorted(set(ours) | set(theirs)):
    print("%-16s %18.0f %18.0f%s" % (n, ours.get(n, 0), theirs.get(n, 0), "" if ours.get(n) == theirs.get(n) else "  differs"))
PY
            if grep -q differs "$out/side-by-side.txt"; then
                result rocprofv3 FAIL "totals differ: $out/side-by-side.txt"
            else
                result rocprofv3 ok "every counter's total equals rocprofv3's ($out/side-by-side.txt)"
            fi
            cat "$out/side-by-side.txt"
        fi
    fi
fi

# trace_counts FILE: "domain count" per line of a results JSON's buffer records (rocprofv3's layout).
trace_counts() {
    python3 - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))["rocprofiler-sdk-tool"][0]
buf = doc.get("buffer_records", {})
for k in ("hip_api", "hsa_api", "marker_api", "memory_copy", "kernel_dispatch"):
    print(k, len(buf.get(k, [])))
PY
}

# trace_links FILE: every dispatch and copy record's correlation id is a HIP call's; prints what fails.
trace_links() {
    python3 - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))["rocprofiler-sdk-tool"][0]
buf = doc.get("buffer_records", {})
calls = {r["correlation_id"]["internal"] for r in buf.get("hip_api", [])}
bad = 0
for k in ("kernel_dispatch", "memory_copy"):
    for r in buf.get(k, []):
        if r["correlation_id"]["internal"] not in calls:
            bad += 1
            if bad <= 3: print("%s record with correlation id %d: no HIP call has it" % (k, r["correlation_id"]["internal"]))
sys.exit(1 if bad else 0)
PY
}

if want trace; then
    if ! "$gorocprof" --help 2>&1 | grep -q -- '--sys-trace'; then
        result trace skipped "this gorocprof has no --sys-trace"
    else
        echo "== trace: --sys-trace"
        # shellcheck disable=SC2086
        "$gorocprof" "${common[@]}" --sys-trace --pmc $G0 -f json -d "$out/trace" -o run -- "${app_cmd[@]}" \
            >"$out/trace.out" 2>>"$LOG"
        trc=$?
        if [ "$trc" -ne 0 ] || [ ! -f "$out/trace/run_results.json" ]; then
            result trace FAIL "--sys-trace exited $trc (log: $LOG)"
        else
            trace_counts "$out/trace/run_results.json" >"$out/trace-counts.txt"
            # A domain the app makes no call of has no records: the emulator's apps make no marker
            # call unless they are sim-trace.
            empty=$(awk '$2 == 0 && $1 != "marker_api" { print $1 }' "$out/trace-counts.txt" | tr '\n' ' ')
            if [ -n "$empty" ]; then
                result trace FAIL "no records of: $empty($out/trace-counts.txt)"
            elif ! trace_links "$out/trace/run_results.json" >"$out/trace-links.txt"; then
                result trace FAIL "$(head -n 3 "$out/trace-links.txt" | tr '\n' ';')"
            else
                result trace ok "$(tr '\n' ' ' <"$out/trace-counts.txt")records; every dispatch and copy has its HIP call"
            fi
            v3=$(command -v rocprofv3 || true)
            [ -z "$v3" ] && [ -x "$rocm_root/bin/rocprofv3" ] && v3=$rocm_root/bin/rocprofv3
            if [ -z "$v3" ]; then
                result trace-rocprofv3 skipped "rocprofv3 is not installed"
            else
                # shellcheck disable=SC2086
                "$v3" --sys-trace --pmc $G0 --output-format json -d "$out/rocprofv3-trace" -o run -- "${app_cmd[@]}" \
                    >"$out/rocprofv3-trace.out" 2>>"$LOG"
                theirs=$(find "$out/rocprofv3-trace" -name '*results.json' | head -n 1)
                if [ -z "$theirs" ]; then
                    result trace-rocprofv3 FAIL "rocprofv3 --sys-trace wrote no results JSON (log: $LOG)"
                else
                    trace_counts "$theirs" >"$out/rocprofv3-trace-counts.txt"
                    join <(sort "$out/trace-counts.txt") <(sort "$out/rocprofv3-trace-counts.txt") |
                        awk '{ d = ($2 != $3 && $1 != "hsa_api") ? "  differs" : ""; printf "%-16s %10s %10s%s\n", $1, $2, $3, d }' \
                            >"$out/trace-side-by-side.txt"
                    if grep -q differs "$out/trace-side-by-side.txt"; then
                        result trace-rocprofv3 FAIL "record counts differ: $out/trace-side-by-side.txt"
                    else
                        result trace-rocprofv3 ok "HIP, marker, copy and dispatch record counts equal rocprofv3's ($out/trace-side-by-side.txt)"
                    fi
                    cat "$out/trace-side-by-side.txt"
                fi
            fi
        fi
    fi
fi

echo "results: $MD"
exit "$failed"
