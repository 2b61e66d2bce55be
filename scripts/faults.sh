#!/usr/bin/env bash
# The fault matrix of issue 16: each fault a real cluster produces, on the simulated backend, and what
# is left afterwards. Prints one Markdown table: fault | gorocprof's exit status | dispatches kept out
# of dispatches run | previous output intact. Run from the repository root after `make`:
#   bash scripts/faults.sh > out/faults.md
# "Dispatches run" comes from the app itself (sim-many's count, the kernels sim-crash, sim-signal and
# sim-spawn run by their code: 3, 2, 4 per image, 4 + 2000 under `limit`) or, where gorocprof is killed,
# from the complete dispatches in the run directory's records. "Kept" are the dispatch ids in the
# counter_collection.csv the run (or `gorocprof process`) wrote.
set -uo pipefail
ROOT=$(pwd)
G=$ROOT/bin/gorocprof
BIN=$ROOT/bin
W=$(mktemp -d /tmp/gorocprof-faults.XXXXXX)
trap 'rm -rf "$W"' EXIT
export TMPDIR=$W/tmp
mkdir -p "$TMPDIR"
PMC=(--pmc SQ_WAVES SQ_INSTS_VALU --pmc GRBM_GUI_ACTIVE --replay-mode kernel --kernel-replay-beta-enabled)

# kept DIR: the dispatches in DIR's counter_collection CSVs, counted by their SQ_WAVES row (pass 0's group
# has it, once per dispatch; two images of one pid after an exec number their dispatches alike).
kept() {
    python3 - "$1" <<'PY'
import csv, glob, sys
n = 0
for f in glob.glob(sys.argv[1] + "/**/*counter_collection.csv", recursive=True):
    n += sum(1 for row in csv.DictReader(open(f)) if row["Counter_Name"] == "SQ_WAVES")
print(n)
PY
}
# recorded RUNDIR: distinct (file, dispatch id) of the complete dispatch lines in a run directory.
recorded() {
    python3 - "$1" <<'PY'
import glob, json, os, sys
seen = set()
for f in glob.glob(sys.argv[1] + "/records/*.ndjson"):
    if os.path.islink(f) or not os.path.isfile(f):
        continue  # a FIFO or a link to /dev/zero planted by a row below
    for line in open(f, errors="replace"):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("t") == "dispatch":
            seen.add((f, r["dispatch_id"]))
print(len(seen))
PY
}
row() { printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4"; }
# previous DIR: a results.json from an earlier run where this run writes, to see whether it survives.
previous() { mkdir -p "$1"; printf '{"previous": true}\n' >"$1/f_results.json"; }
intact() { if grep -q '"previous": true' "$1/f_results.json" 2>/dev/null; then echo yes; else echo "no (replaced)"; fi; }

echo "| fault | exit status | dispatches kept / run | previous output intact |"
echo "| --- | --- | --- | --- |"

d=$W/crash; "$G" --quiet "${PMC[@]}" -d "$d" -o f -- "$BIN/sim-crash" >/dev/null 2>&1
row "app aborts (SIGABRT) after its 3rd kernel" "$?" "$(kept "$d") / 3" "n/a: the run's own output"

d=$W/sigkill-app; "$G" --quiet "${PMC[@]}" -d "$d" -o f -- "$BIN/sim-signal" kill >/dev/null 2>&1
row "app killed by SIGKILL after 2 kernels" "$?" "$(kept "$d") / 2" "n/a: the run's own output"

# gorocprof itself SIGKILLed in the middle of a long run; then `gorocprof process` on the kept directory.
d=$W/killed; previous "$d"
"$G" --quiet "${PMC[@]}" -d "$d" -o f -- "$BIN/sim-many" 1000000 >/dev/null 2>&1 &
gp=$!
for _ in $(seq 1 100); do
    f=$(ls "$TMPDIR"/gorocprof-run-*/records/*.ndjson 2>/dev/null | head -n 1)
    [ -n "$f" ] && [ "$(wc -l <"$f")" -gt 2000 ] && break
    sleep 0.1
done
kill -KILL $gp; wait $gp 2>/dev/null; st=$?
sleep 0.5
app_alive=$(pgrep -f "sim-many 1000000" >/dev/null && echo "app still running" || echo "app gone")
run=$(ls -d "$TMPDIR"/gorocprof-run-* | head -n 1)
was_intact=$(intact "$d")
n_run=$(recorded "$run")
"$G" process "$run" -d "$d/processed" -o f >/dev/null 2>&1; pst=$?
row "gorocprof SIGKILLed mid-run ($app_alive), then \`gorocprof process\` (exit $pst)" "$st" "$(kept "$d/processed") / $n_run" "$was_intact"

# One damaged line in the middle of that record file (a bit flipped in a dispatch line), processed again.
f=$(ls "$run"/records/*.ndjson | head -n 1)
python3 - "$f" <<'PY'
import sys
path = sys.argv[1]
lines = open(path, "rb").read().split(b"\n")
for i in range(len(lines) // 2, len(lines)):
    if b'"t":"dispatch"' in lines[i]:
        lines[i] = lines[i].replace(b'"t":"dispatch"', b'"t":"dispatc\x01"', 1)
        break
open(path, "wb").write(b"\n".join(lines))
PY
"$G" process "$run" -d "$d/damaged" -o f >/dev/null 2>&1; pst=$?
row "one damaged line in a record file, then \`gorocprof process\`" "$pst" "$(kept "$d/damaged") / $n_run" "n/a"
rm -rf "$run"

for mode in "exec 8" "fork-exec 12" "fork-exit 4" "exec-true 4" "quit 4" "become-true 4"; do
    set -- $mode
    d=$W/spawn-$1; "$G" --quiet "${PMC[@]}" -d "$d" -- "$BIN/sim-spawn" "$1" >/dev/null 2>&1
    row "sim-spawn $1 (a process image ends or begins without a crash)" "$?" "$(kept "$d") / $2" "n/a"
done

d=$W/limit; "$G" --quiet "${PMC[@]}" -d "$d" -o f -- "$BIN/sim-spawn" limit 20000 >"$W/limit.out" 2>&1; st=$?
app=$(grep -q "sim-spawn: limit: PASS" "$W/limit.out" && echo "app passed" || echo "APP FAILED")
row "the app lowers its file size limit to 20000 bytes ($app; the tool stops recording)" "$st" "$(kept "$d") / 2004" "n/a"

# gorocprof's own output write hits the file size limit: the previous results.json must survive.
d=$W/outlimit; previous "$d"
(ulimit -f 200; "$G" --quiet "${PMC[@]}" -d "$d" -o f -f json -- "$BIN/sim-many" 3000 >/dev/null 2>&1); st=$?
row "gorocprof's output write exceeds the file size limit (100 KiB)" "$st" "- / 3000 (records kept for \`gorocprof process\`)" "$(intact "$d")"

# A symbolic link planted where an output file goes.
d=$W/symlink; mkdir -p "$d"; printf 'victim\n' >"$W/victim"; ln -s "$W/victim" "$d/f_results.json"
"$G" --quiet "${PMC[@]}" -d "$d" -o f -- "$BIN/sim-many" 100 >/dev/null 2>&1; st=$?
v=$(grep -qx victim "$W/victim" && echo "yes: the link's target is untouched" || echo "NO: the target was written")
row "a symbolic link planted at the output name" "$st" "$(kept "$d") / 100" "$v"

d=$W/escape; "$G" --quiet "${PMC[@]}" -d "$d" -o ../escaped -- "$BIN/sim-many" 100 >/dev/null 2>&1; st=$?
e=$(ls "$W"/escaped* >/dev/null 2>&1 && echo "NO: written outside -d" || echo "yes: refused before launch")
row "\`-o ../escaped\` (outside -d)" "$st" "0 / 0 (not launched)" "$e"

d=$W/regex; s=$(date +%s)
timeout 60 "$G" --quiet "${PMC[@]}" --kernel-include-regex '(.*.*)*z' -d "$d" -o f -- "$BIN/sim-many" 100 >/dev/null 2>&1; st=$?
row "a backtracking-hostile kernel regex \`(.*.*)*z\` ($(( $(date +%s) - s )) s)" "$st" "$(kept "$d") / 0 selected" "n/a"

# ---- issue 33: the second reliability round ----

# The app closes every descriptor it did not open, or dup2()s its own file over the others: the
# tool's records never land in the app's file, and no dispatch is lost (5 + 100 per run).
for mode in close-range dup2; do
    d=$W/fds-$mode; "$G" --quiet "${PMC[@]}" -d "$d" -o f -- "$BIN/sim-fds" "$mode" "$W/app-$mode.txt" >"$W/fds.out" 2>&1; st=$?
    own=$(grep -q "sim-fds: $mode: PASS" "$W/fds.out" && echo "yes: the app's file holds its own lines only" || echo "NO: the app's file was written into")
    row "sim-fds $mode (the app takes the record file's descriptor)" "$st" "$(kept "$d") / 105" "$own"
done

# A run directory kept for `gorocprof process`: gorocprof SIGKILLed once the record file holds more
# than $1 lines (the app dies with it), used by the record-file rows below.
keep_run() {
    rm -rf "$TMPDIR"/gorocprof-run-*
    "$G" --quiet "${PMC[@]}" -d "$W/keep" -o k -- "$BIN/sim-many" 1000000 >/dev/null 2>&1 &
    local gp=$!
    for _ in $(seq 1 300); do
        f=$(ls "$TMPDIR"/gorocprof-run-*/records/*.ndjson 2>/dev/null | head -n 1)
        [ -n "$f" ] && [ "$(wc -l <"$f")" -gt "$1" ] && break
        sleep 0.05
    done
    kill -KILL $gp; wait $gp 2>/dev/null
    sleep 0.3
    run=$(ls -d "$TMPDIR"/gorocprof-run-* | head -n 1)
}

# The header line of a record file damaged (a bit flipped): the file's other lines are read.
keep_run 2000
f=$(ls "$run"/records/*.ndjson | head -n 1)
sed -i '1s/"t":"header"/"t":"hea\x01der"/' "$f"
"$G" process "$run" -d "$W/hdr" -o f >/dev/null 2>&1; pst=$?
row "the header line of a record file damaged, then \`gorocprof process\`" "$pst" "$(kept "$W/hdr") / $(recorded "$run")" "n/a"

# One dispatch line says it has 2,000,000,000 passes: a damaged line, not 24 GB of memory.
keep_run 2000
f=$(ls "$run"/records/*.ndjson | head -n 1)
sed -i '0,/"passes":2,/s//"passes":2000000000,/' "$f"
n_run=$(recorded "$run")
/usr/bin/time -f %M -o "$W/rss" "$G" process "$run" -d "$W/passes" -o f >/dev/null 2>&1; pst=$?
row "a dispatch line with \`\"passes\":2000000000\`, then \`gorocprof process\` ($(( $(tail -n 1 "$W/rss") / 1024 )) MB peak)" "$pst" "$(kept "$W/passes") / $n_run" "n/a"

# The same record file twice (N.ndjson and N-1.ndjson): read once, and said.
keep_run 2000
f=$(ls "$run"/records/*.ndjson | head -n 1)
n_run=$(recorded "$run")
cp "$f" "${f%.ndjson}-1.ndjson"
"$G" process "$run" -d "$W/copy" -o f >"$W/copy.out" 2>&1; pst=$?
said=$(grep -q "hold the same records" "$W/copy.out" && echo "said" || echo "NOT SAID")
row "a record file present twice, then \`gorocprof process\` (the copy $said)" "$pst" "$(kept "$W/copy") / $n_run" "n/a"

# A FIFO and a link to /dev/zero among the record files, and a FIFO given to merge: refused at once.
rm -f "${f%.ndjson}-1.ndjson"
mkfifo "$run/records/99.ndjson"; ln -s /dev/zero "$run/records/98.ndjson"
s=$(date +%s.%N); timeout 60 "$G" process "$run" -d "$W/fifo" -o f >/dev/null 2>&1; pst=$?
row "a FIFO and /dev/zero under records/, then \`gorocprof process\` ($(printf '%.1f' "$(echo "$(date +%s.%N) - $s" | bc)") s)" "$pst" "$(kept "$W/fifo") / $(recorded "$run")" "n/a"
mkfifo "$W/in.json"; s=$(date +%s.%N)
timeout 60 "$G" merge "$W/in.json" "$W/fifo/f_results.json" -d "$W/merged" >/dev/null 2>&1; st=$?
row "a FIFO given to \`gorocprof merge\` ($(printf '%.1f' "$(echo "$(date +%s.%N) - $s" | bc)") s; 124 would be a hang)" "$st" "0 / 0 (refused)" "n/a"

# A full TMPDIR (a 1 MiB tmpfs, filled) for `gorocprof process`: the spool goes to the output
# directory's file system. Needs mount(2) (root); otherwise the row says so.
if mkdir -p "$W/small" && mount -t tmpfs -o size=1m tmpfs "$W/small" 2>/dev/null; then
    dd if=/dev/zero of="$W/small/fill" bs=64k 2>/dev/null
    keep_run 40000
    TMPDIR=$W/small "$G" process "$run" -d "$W/full" -o f >/dev/null 2>&1; pst=$?
    row "TMPDIR full (1 MiB tmpfs), then \`gorocprof process\` (the spool goes to -d's file system)" "$pst" "$(kept "$W/full") / $(recorded "$run")" "n/a"
    umount "$W/small"
else
    row "TMPDIR full (1 MiB tmpfs): not run, mount(2) is not allowed here" "-" "-" "-"
fi
rm -rf "$TMPDIR"/gorocprof-run-*

# Processes the app leaves running: adopted, waited for, their records kept (4 + 4 + 100).
for mode in orphan daemon; do
    d=$W/tree-$mode; "$G" --quiet "${PMC[@]}" -d "$d" -o f -- "$BIN/sim-spawn" "$mode" >/dev/null 2>&1
    row "sim-spawn $mode (a process outlives the app)" "$?" "$(kept "$d") / 108" "n/a"
done
# SIGTERM of gorocprof while the app runs behind a wrapper shell: the app ends too.
d=$W/wrapped; "$G" --quiet --backend sim "${PMC[@]}" -d "$d" -o f -- sh -c "$BIN/sim-many 999998 >/dev/null 2>&1; true" &
gp=$!
for _ in $(seq 1 100); do ls "$TMPDIR"/gorocprof-run-*/records/*.ndjson >/dev/null 2>&1 && break; sleep 0.1; done
sleep 0.5; kill -TERM $gp; wait $gp; st=$?; sleep 0.5
app=$(pgrep -f "sim-many 999998" >/dev/null && echo "NO: the app runs on" || echo "yes: the app ended with it")
row "SIGTERM of gorocprof, the app behind \`sh -c\`" "$st" "$(kept "$d") / $(kept "$d")" "$app"

# SIGHUP while the output is written: stopped as SIGTERM is, no temporary file left, the earlier
# output intact; a stale temporary file of the prefix (a killed run's) is removed by the next run.
d=$W/hup; previous "$d"; touch "$d/.f_results.json.tmp-0123456789ab"
"$G" --quiet "${PMC[@]}" -d "$d" -o f -f json -- "$BIN/sim-many" 200000 >/dev/null 2>&1 &
gp=$!
for _ in $(seq 1 600); do
    ls "$d"/.f_results.json.tmp-* 2>/dev/null | grep -vq 0123456789ab && break
    sleep 0.05
done
kill -HUP $gp; wait $gp; st=$?
left=$(ls -A "$d" | grep -c '\.tmp-')
row "SIGHUP while the output is written ($left temporary files left, the stale one included)" "$st" "- / 200000 (records kept for \`gorocprof process\`)" "$(intact "$d")"
rm -rf "$TMPDIR"/gorocprof-run-*

# -E: a 60-level chain of doubling definitions (E_i = E_{i+1}*E_{i+1}), expanded as a graph.
{
    printf 'rocprofiler-sdk:\n  counters-schema-version: 1\n  counters:\n'
    for i in $(seq 0 59); do
        e="E_$((i + 1))*E_$((i + 1))"; [ "$i" = 59 ] && e=SQ_WAVES
        printf '  - name: E_%d\n    description: x\n    definitions:\n    - architectures: [gfx90a, gfx942]\n      expression: %s\n' "$i" "$e"
    done
} >"$W/chain.yaml"
s=$(date +%s.%N); timeout 60 "$G" plan --backend sim -E "$W/chain.yaml" --pmc E_0 >/dev/null 2>&1; st=$?
row "\`-E\` with a 60-level doubling chain, \`gorocprof plan --pmc E_0\` ($(printf '%.2f' "$(echo "$(date +%s.%N) - $s" | bc)") s)" "$st" "n/a" "n/a"

# Four runs at once with one -d and -o: one runs, the others are refused before launch.
d=$W/four; pids=()
for i in 1 2 3 4; do "$G" --quiet "${PMC[@]}" -d "$d" -o f -- "$BIN/sim-many" 3000 >"$W/four-$i.out" 2>&1 & pids+=($!); done
sts=(); for p in "${pids[@]}"; do wait "$p"; sts+=($?); done
refused=$(grep -l "is in use by a running gorocprof" "$W"/four-*.out | wc -l)
row "four runs at once, one \`-d\` and \`-o\` ($refused refused before launch)" "${sts[*]}" "$(kept "$d") / 3000" "n/a: one run's files, whole"

# `gorocprof process` of a run directory whose run is still going: refused.
"$G" --quiet "${PMC[@]}" -d "$W/live" -o f -- "$BIN/sim-many" 1000000 >/dev/null 2>&1 &
gp=$!
for _ in $(seq 1 100); do ls "$TMPDIR"/gorocprof-run-*/records/*.ndjson >/dev/null 2>&1 && break; sleep 0.1; done
run=$(ls -d "$TMPDIR"/gorocprof-run-* | head -n 1)
"$G" process "$run" -d "$W/live-p" >"$W/live.out" 2>&1; pst=$?
kill -INT $gp; wait $gp 2>/dev/null
said=$(grep -q "its run is still going" "$W/live.out" && echo "refused" || echo "NOT REFUSED")
row "\`gorocprof process\` of a live run directory ($said)" "$pst" "0 / 0" "n/a"
rm -rf "$TMPDIR"/gorocprof-run-*

# A counter name of 100 KB: one bounded line, at once.
big=$(head -c 100000 /dev/zero | tr '\0' A); s=$(date +%s.%N)
"$G" --pmc "$big" -d "$W/big" -- "$BIN/sim-many" 10 2>"$W/big.err" >/dev/null; st=$?
row "\`--pmc\` with a 100 KB name ($(wc -c <"$W/big.err") bytes on stderr, $(printf '%.2f' "$(echo "$(date +%s.%N) - $s" | bc)") s)" "$st" "0 / 0 (refused)" "n/a"

# merge of a results.json with text after its object: refused, as -i refuses it.
"$G" --quiet "${PMC[@]}" -d "$W/mj" -o m -f json -- "$BIN/sim-many" 10 >/dev/null 2>&1
cp "$W/mj/m_results.json" "$W/trailing.json"; echo '{}' >>"$W/trailing.json"
"$G" merge "$W/mj/m_results.json" "$W/trailing.json" -d "$W/mt" >"$W/mt.out" 2>&1; st=$?
said=$(grep -q "text after the end" "$W/mt.out" && echo "refused, named" || echo "ACCEPTED")
row "\`gorocprof merge\` of a results.json with trailing text ($said)" "$st" "0 / 0" "n/a"

# Too few descriptors: one line, no runtime trace.
(ulimit -n 6; "$G" --quiet "${PMC[@]}" -d "$W/fd6" -- "$BIN/sim-many" 10 >/dev/null 2>"$W/fd6.err"); st=$?
row "\`ulimit -n 6\` ($(wc -l <"$W/fd6.err") line on stderr$(grep -q goroutine "$W/fd6.err" && echo ', A RUNTIME TRACE'))" "$st" "0 / 0 (refused)" "n/a"

# RE2 in the injected library: its symbols must not be exported into the app.
n=$(nm -D --defined-only "$ROOT/lib/gorocprof/libgorocprof_tool_sim.so" | grep -c 're2')
need=$(readelf -d "$ROOT/lib/gorocprof/libgorocprof_tool_sim.so" | grep -o 'libre2[^]]*' | head -n 1)
row "RE2 symbols the injected library exports ($n)${need:+, needs $need at run time}" "-" "n/a" "n/a"
