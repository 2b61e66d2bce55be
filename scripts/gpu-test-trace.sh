# The trace section of scripts/gpu-test.sh (docs/tracing.md), sourced by it in its own scope after the other
# sections: it defines TRACE_DOMAINS, trace_plan and trace_run, and uses gpu-test.sh's variables and functions
# (ROOT, WORK, OUT, G0..G2, AGENT_NAME, want, say, ms_since, FAILED). Not a script of its own.
# ---- trace: API calls, copies, memsets and markers (docs/tracing.md) ----------------------------------------
# tests/trace.cu prints what it made (TRACE-EXPECT); tests/check_trace.py compares the records with it. Runs: the
# four domains traced alone (no counters); the same under kernel replay with the three groups, whose op counts
# must equal the first's (the tool's passes, snapshots and restores add no line); the first with the API calls from
# CUPTI's callbacks, the same lines again; the runtime domain without the driver's under kernel replay; the front end's --sys-trace with
# the three groups when bin/gorocprof has the flag; and nsys (--trace=cuda,nvtx) where it makes a report, its
# per-name call counts (runtime and driver) against ours. The app's first NVTX call comes before CUDA starts, so NVTX_INJECTION64_PATH
# must name the tool library beforehand, as the front end sets it (the tool's own setenv at CUDA's start is too late).
TRACE_DOMAINS=CUDA_DRIVER_API,CUDA_RUNTIME_API,MARKER_CORE_RANGE_API,MEMORY_COPY
trace_plan() { # trace_plan PATH MODE [GROUP...]: plan.json tracing $TRACE_DOMAINS, kernel replay of the groups or none
    local path=$1 mode=$2; shift 2
    python3 - "$path" "$AGENT_NAME" "$mode" "$TRACE_DOMAINS" "$@" <<'PY'
import json, sys
path, agent, mode, domains = sys.argv[1:5]
passes = [{"group": i, "counters": [{"name": m, "block": "", "event": 0} for m in g.split(",")]}
          for i, g in enumerate(sys.argv[5:])]
json.dump({"version": 1, "backend": "cuda", "replay_mode": mode, "application_pass": -1, "kernel_trace": True,
           "filters": {"include_regex": "", "exclude_regex": "", "name_kind": "demangled", "iteration_ranges": []},
           "trace_domains": sorted(domains.split(",")),
           "agents": [{"index": 0, "name": agent, "passes": passes}] if passes else []}, open(path, "w"))
PY
}
trace_run() { # trace_run DIR MODE [GROUP...] -- CMD...: CMD under the tool library with trace_plan's plan
    local dir=$1 mode=$2; shift 2
    local groups=()
    while [ "$1" != "--" ]; do groups+=("$1"); shift; done
    shift
    mkdir -p "$dir/records" && trace_plan "$dir/plan.json" "$mode" "${groups[@]}"
    env NVTX_INJECTION64_PATH="$TOOL" GOROCPROF_CONTRACT=1 GOROCPROF_RUN_DIR="$dir" GOROCPROF_PLAN="$dir/plan.json" \
        GOROCPROF_LOG_LEVEL=warning CUDA_INJECTION64_PATH="$TOOL" "$@"
}
if want trace; then
    exe=$ROOT/bin/cuda-trace
    d=$WORK/trace
    say "trace"
    t=$(date +%s%N); "$exe" >"$d-unprofiled.txt" 2>&1; rc_u=$?; t_u=$(ms_since $t)
    t=$(date +%s%N); trace_run "$d-alone" none -- "$exe" >"$d-alone.txt" 2>&1; rc_a=$?; t_a=$(ms_since $t)
    t=$(date +%s%N); trace_run "$d-replay" kernel "$G0" "$G1" "$G2" -- "$exe" >"$d-replay.txt" 2>&1; rc_r=$?; t_r=$(ms_since $t)
    # The API calls from CUPTI's callbacks instead of its activity records: the same lines, but for the driver
    # domain, where the callbacks also see the runtime's own driver calls inside its API calls.
    t=$(date +%s%N); trace_run "$d-callbacks" none -- env GOROCPROF_CUDA_API_ACTIVITY=0 "$exe" >"$d-callbacks.txt" 2>&1; rc_c=$?; t_c=$(ms_since $t)
    # The runtime alone (no driver domain) under kernel replay: dispatches and copies take the runtime call's id.
    RT_DOMAINS=CUDA_RUNTIME_API,MARKER_CORE_RANGE_API,MEMORY_COPY
    t=$(date +%s%N); TRACE_DOMAINS=$RT_DOMAINS trace_run "$d-runtime" kernel "$G0" "$G1" -- "$exe" >"$d-runtime.txt" 2>&1; rc_t=$?; t_t=$(ms_since $t)
    v_a=$(python3 tool/cuda/tests/check_trace.py "$d-alone" "$d-alone.txt" --domains $TRACE_DOMAINS --driver-within "$d-callbacks" 2>&1)
    v_r=$(python3 tool/cuda/tests/check_trace.py "$d-replay" "$d-replay.txt" --domains $TRACE_DOMAINS --driver-within "$d-callbacks" --same "$d-alone" 2>&1)
    v_c=$(python3 tool/cuda/tests/check_trace.py "$d-callbacks" "$d-callbacks.txt" --domains $TRACE_DOMAINS --same "$d-alone" \
        --same-domains $RT_DOMAINS 2>&1)
    v_t=$(python3 tool/cuda/tests/check_trace.py "$d-runtime" "$d-runtime.txt" --domains $RT_DOMAINS 2>&1)
    for v in a r c t; do
        eval "rc=\$rc_$v verdict=\$v_$v"
        ok=PASS
        if [ "$rc" -ne 0 ] || [ "$rc_u" -ne 0 ] || ! echo "$verdict" | grep -q '"ok": true'; then ok=FAIL; FAILED=1; fi
        case $v in
        a) what="traced alone" ;;
        r) what="kernel replay, 3 groups" ;;
        c) what="API calls from callbacks (GOROCPROF_CUDA_API_ACTIVITY=0)" ;;
        t) what="runtime domain alone, kernel replay, 2 groups" ;;
        esac
        eval "ms=\$t_$v"
        say "trace $what: $ok | rc $rc (unprofiled rc $rc_u / $t_u ms) | $ms ms | $verdict"
    done
    grep -E "gorocprof-tool|FAIL" "$d-alone.txt" "$d-replay.txt" "$d-callbacks.txt" "$d-runtime.txt" | head -8 | tee -a "$LOG"
    # The lines of the replayed run, a few of each type, for the log.
    cat "$d-replay"/records/*.ndjson | python3 -c '
import collections, json, sys
seen = collections.Counter()
for l in sys.stdin:
    r = json.loads(l)
    k = (r["t"], r.get("domain", ""), r.get("op", ""))
    if r["t"] in ("api", "marker", "copy", "agent") and seen[k] < 1:
        print(json.dumps(r, sort_keys=True)[:300])
    seen[k] += 1
print("op counts:", json.dumps({"/".join(k): v for k, v in sorted(seen.items()) if k[0] in ("api", "marker", "copy")}))
' >"$d-lines.txt" 2>&1
    tail -1 "$d-lines.txt" | cut -c1-3000 | tee -a "$LOG"
    grep -c . "$d-lines.txt" >/dev/null && head -40 "$d-lines.txt" >>"$LOG"
    # nsys, where it is: its call counts per name against the traced run's (a report needs its importer).
    NSYS=$(command -v nsys || ls /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | head -1)
    if [ -n "$NSYS" ]; then
        t=$(date +%s%N)
        timeout 120 "$NSYS" profile --trace=cuda,nvtx --sample=none --cpuctxsw=none -o "$d-nsys" -f true "$exe" >"$d-nsys.txt" 2>&1
        rc_n=$?; t_n=$(ms_since $t)
        if [ ! -f "$d-nsys.nsys-rep" ] && [ -f "$d-nsys.qdstrm" ]; then
            # The importer needs libdw.so.1, which the image lacks: Debian's libdw1 and libelf1, where the device
            # call carried them beside RE2's packages and unpacked them under $RE2_ROOT, stand in.
            IMP=$(ls /opt/nvidia/nsight-compute/*/host/*/QdstrmImporter 2>/dev/null | head -1)
            [ -n "$IMP" ] && LD_LIBRARY_PATH="${RE2_ROOT:+$RE2_ROOT/usr/lib/x86_64-linux-gnu:}${LD_LIBRARY_PATH:-}" \
                timeout 120 "$IMP" -i "$d-nsys.qdstrm" >>"$d-nsys.txt" 2>&1
        fi
        if [ -f "$d-nsys.nsys-rep" ]; then
            timeout 120 "$NSYS" stats --report cuda_api_sum,nvtx_sum --format csv -o "$d-nsys" "$d-nsys.nsys-rep" >>"$d-nsys.txt" 2>&1
        fi
        say "trace nsys: rc $rc_n / $t_n ms (with the app's own start) | $(python3 - "$d-alone" "$d-nsys" <<'PY' 2>&1
import collections, csv, glob, json, os, sys
ours = collections.Counter()
for f in glob.glob(os.path.join(sys.argv[1], "records", "*.ndjson")):
    for l in open(f):
        r = json.loads(l)
        if r["t"] == "api":
            ours[r["op"]] += 1
        elif r["t"] == "marker":
            ours["nvtx:" + (r.get("message") or "")] += 1
theirs = collections.Counter()
files = glob.glob(sys.argv[2] + "*cuda_api_sum*.csv") + glob.glob(sys.argv[2] + "*nvtx_sum*.csv")
for f in files:
    for row in csv.DictReader(open(f)):
        name = row.get("Name") or row.get("Range") or ""
        n = int(float(row.get("Num Calls") or row.get("Instances") or 0))
        if "nvtx_sum" in f:
            theirs["nvtx:" + name.lstrip(":")] += n
        else:
            theirs[name.split("_v")[0] if name.startswith("cuda") else name] += n
if not files:
    print("no nsys report (not compared)"); sys.exit(0)
common = sorted(set(ours) & set(theirs))
differ = {k: (ours[k], theirs[k]) for k in common if ours[k] != theirs[k]}
only_ours = sorted(set(ours) - set(theirs)); only_theirs = sorted(set(theirs) - set(ours))
print("%d names in both, %d with other counts %s; only ours %s; only nsys's %s" % (
    len(common), len(differ), json.dumps(differ, sort_keys=True)[:600], only_ours[:12], only_theirs[:12]))
PY
)"
        tail -3 "$d-nsys.txt" | tee -a "$LOG"
    fi
    # The front end, when it has --sys-trace (issue 32's flags): three groups under kernel replay; it sets NVTX_INJECTION64_PATH.
    if [ -x "$ROOT/bin/gorocprof" ] && "$ROOT/bin/gorocprof" --help 2>&1 | grep -q -- "--sys-trace"; then
        t=$(date +%s%N)
        timeout 120 "$ROOT/bin/gorocprof" --sys-trace --pmc ${G0/,/ } --pmc ${G1/,/ } --pmc ${G2/,/ } \
            --replay-mode kernel --kernel-replay-beta-enabled -d "$d-cli" -o trace -- "$exe" >"$d-cli.txt" 2>&1
        rc_cli=$?
        say "trace bin/gorocprof --sys-trace: rc $rc_cli / $(ms_since $t) ms / files: $(cd "$d-cli" 2>/dev/null && for f in $(ls | grep -i -E 'trace|api' | head -8); do printf '%s(%s lines) ' "$f" "$(wc -l <"$f")"; done)"
        tail -5 "$d-cli.txt" | tee -a "$LOG"
        [ $rc_cli -eq 0 ] || FAILED=1
    fi
fi
