#!/usr/bin/env bash
# gorocprof under Open MPI's mpirun: four ranks, each profiling its own process of a simulated-agent
# app (kernel replay, two groups) into <dir>/<rank>/; each rank's results hold every dispatch the
# app made, each with both passes. Then --profile-mpi-ranks 0,2: ranks 1 and 3 run the app without
# the tool and write nothing, and every rank succeeds. Between the two, `gorocprof merge` makes one
# result of the four ranks'. Without mpirun (ensure-deps.sh mpi installs
# Debian's openmpi-bin as root) the test says so and is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "FAIL mpi: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! ./scripts/ensure-deps.sh mpi 2>"$tmp/deps"; then
  sed 's/^/  /' "$tmp/deps" >&2
  echo "skip mpi: no mpirun on this machine (install Debian's openmpi-bin, or run make test as root)"
  exit 0
fi
for f in bin/gorocprof bin/sim-many; do [ -x "$f" ] || fail "$f is not built (make all)"; done

ranks=4 dispatches=100 passes=2
as_root=()
[ "$(id -u)" = 0 ] && as_root=(--allow-run-as-root)
# run DIR [gorocprof flags...]: every rank profiles sim-many into DIR/<rank>/run_*.
run() {
  local dir=$1
  shift
  mpirun -np "$ranks" --oversubscribe "${as_root[@]}" bin/gorocprof --quiet \
    --pmc SQ_WAVES SQ_INSTS_VALU --pmc SQ_WAVES SQ_INSTS_SALU --replay-mode kernel --kernel-replay-beta-enabled \
    -d "$dir" -o %rank%/run "$@" -- bin/sim-many "$dispatches" >"$tmp/out" 2>&1 ||
    { cat "$tmp/out" >&2; fail "mpirun $* exited with status $?"; }
  [ "$(grep -c 'sim-many: PASS' "$tmp/out")" = "$ranks" ] || { cat "$tmp/out" >&2; fail "not every rank's sim-many passed"; }
}
# check_rank DIR RANK: the rank's results.json holds dispatches 1..N, each once per pass, and its CSV
# one row per counter of each pass.
check_rank() {
  local json=$1/$2/run_results.json csv=$1/$2/run_counter_collection.csv
  [ -f "$json" ] && [ -f "$csv" ] || fail "rank $2 wrote no results under $1/$2 ($(ls "$1" 2>&1 | tr '\n' ' '))"
  local ids per_id pass0 pass1 rows
  ids=$(grep -o '"dispatch_id": *[0-9]*' "$json" | sort -u | wc -l)
  per_id=$(grep -o '"dispatch_id": *[0-9]*' "$json" | sort | uniq -c | awk -v p="$passes" '$1 != p' | wc -l)
  pass0=$(grep -o '"replay_pass": *0\b' "$json" | wc -l)
  pass1=$(grep -o '"replay_pass": *1\b' "$json" | wc -l)
  rows=$(($(wc -l <"$csv") - 1))
  [ "$ids" = "$dispatches" ] || fail "rank $2: $ids dispatches in $json, want $dispatches"
  [ "$per_id" = 0 ] || fail "rank $2: $per_id dispatches without exactly $passes passes in $json"
  [ "$pass0" = "$dispatches" ] && [ "$pass1" = "$dispatches" ] || fail "rank $2: passes 0 and 1 have $pass0 and $pass1 records, want $dispatches each"
  [ "$rows" = $((dispatches * 4)) ] || fail "rank $2: $rows rows in $csv, want $((dispatches * 4)) (4 counters of 2 passes each)"
}

start=$(date +%s.%N)
run "$tmp/all"
for r in $(seq 0 $((ranks - 1))); do check_rank "$tmp/all" "$r"; done
[ "$(ls "$tmp/all" | wc -l)" = "$ranks" ] || fail "other files than the ranks' in $tmp/all: $(ls "$tmp/all" | tr '\n' ' ')"

# The four ranks merged into one result: one results.json element per rank, the ranks' dispatch ids
# kept apart (every dispatch of every rank once, with both passes), the CSV rows of all.
bin/gorocprof merge --quiet -d "$tmp/merged" -o all "$tmp/all"/*/ >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "gorocprof merge exited with status $?"; }
mjson=$tmp/merged/all_results.json mcsv=$tmp/merged/all_counter_collection.csv
[ "$(grep -o '"metadata":' "$mjson" | wc -l)" = "$ranks" ] || fail "merge: $(grep -o '"metadata":' "$mjson" | wc -l) processes in $mjson, want $ranks"
ids=$(grep -o '"dispatch_id": *[0-9]*' "$mjson" | sort -u | wc -l)
[ "$ids" = $((ranks * dispatches)) ] || fail "merge: $ids distinct dispatch ids in $mjson, want $((ranks * dispatches))"
per_id=$(grep -o '"dispatch_id": *[0-9]*' "$mjson" | sort | uniq -c | awk -v p="$passes" '$1 != p' | wc -l)
[ "$per_id" = 0 ] || fail "merge: $per_id dispatch ids without exactly $passes passes in $mjson"
rows=$(($(wc -l <"$mcsv") - 1))
[ "$rows" = $((ranks * dispatches * 4)) ] || fail "merge: $rows rows in $mcsv, want $((ranks * dispatches * 4))"

run "$tmp/some" --profile-mpi-ranks 0,2
check_rank "$tmp/some" 0
check_rank "$tmp/some" 2
[ "$(ls "$tmp/some" | tr '\n' ' ')" = "0 2 " ] || fail "--profile-mpi-ranks 0,2 wrote $(ls "$tmp/some" | tr '\n' ' '), want 0 and 2 only"
elapsed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
echo "ok mpi ($ranks ranks x $dispatches dispatches x $passes passes, merged, then ranks 0,2 of $ranks: ${elapsed} s)"
