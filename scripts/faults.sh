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
import glob, json, sys
seen = set()
for f in glob.glob(sys.argv[1] + "/records/*.ndjson"):
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
