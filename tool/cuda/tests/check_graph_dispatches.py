#!/usr/bin/env python3
"""Checks a run of tests/graphs.cu under --graph-profiling graph (GOROCPROF_GRAPH_PROFILING=graph) against ncu.

Usage: check_graph_dispatches.py RUN_DIR NCU_CSV PASSES. The records must hold one dispatch per graph launch
(graph_1 x5, graph_2 x3, graph_3 x2, graph_4 x2, in dispatch order), passes 0..PASSES-1 each, every value present
and the same on every pass, no decline or fatal line; each launch's values must equal those `ncu --csv --page raw
--graph-profiling graph` reports for the same launch (rows in launch order). Prints one line, PASS or FAIL first,
with the values equal to ncu's per graph and what ncu names its workloads; exits 1 on FAIL.
"""
import csv, glob, json, math, os, sys, collections
run, ncu_path, P = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = [json.loads(l) for f in sorted(glob.glob(os.path.join(run, "records", "*.ndjson"))) for l in open(f) if l.strip()]
names = {l["kernel_id"]: l["name"] for l in lines if l["t"] == "kernel"}
by = collections.defaultdict(list)
problems = []
for l in lines:
    if l["t"] == "dispatch":
        by[l["dispatch_id"]].append(l)
    elif l["t"] in ("decline", "fatal"):
        problems.append("%s: %s" % (l["t"], (l.get("reason") or l.get("message", ""))[:100]))
order = [names.get(by[i][0]["kernel_id"], "?") for i in sorted(by)]
want = ["graph_1"] * 5 + ["graph_2"] * 3 + ["graph_3"] * 2 + ["graph_4"] * 2
if order != want:
    problems.append("dispatches %s, want %s" % (collections.Counter(order), collections.Counter(want)))
ours = []  # per dispatch, in order: {metric: value}
for i in sorted(by):
    recs = by[i]
    if sorted(r["pass"] for r in recs) != list(range(P)):
        problems.append("dispatch %d has passes %s" % (i, sorted(r["pass"] for r in recs)))
    vals = collections.defaultdict(set)
    for r in recs:
        for c in r.get("counters") or []:
            for v in c["values"]:
                if v is None or (isinstance(v, float) and math.isnan(v)):
                    problems.append("dispatch %d pass %d: %s empty" % (i, r["pass"], c["name"]))
                else:
                    vals[c["name"]].add(float(v))
    for m, v in vals.items():
        if len(v) > 1:
            problems.append("dispatch %d: %s differs across passes %s" % (i, m, sorted(v)))
    ours.append({m: min(v) for m, v in vals.items()})
rows = [l for l in open(ncu_path, encoding="utf-8", errors="replace") if l.startswith('"')]
theirs, ncu_names = [], []
if rows:
    reader = csv.reader(rows)
    header = next(reader)
    for row in reader:
        if len(row) != len(header) or row[0] == "":
            continue
        rec = dict(zip(header, row))
        ncu_names.append(rec.get("Kernel Name", "?"))
        got = {}
        for k, v in rec.items():
            if "__" in k and "." in k:
                try:
                    got[k] = float(v.replace(",", ""))
                except ValueError:
                    pass
        theirs.append(got)
compared = mismatch = 0
equal = collections.defaultdict(lambda: [0, 0])  # graph name -> [values equal to ncu's, compared]
if len(theirs) != len(ours):
    problems.append("ncu reported %d graph workloads, gorocprof %d dispatches" % (len(theirs), len(ours)))
for k, (a, b) in enumerate(zip(ours, theirs)):
    for m, v in a.items():
        if m in b:
            compared += 1
            equal[order[k]][1] += 1
            if v != b[m]:
                mismatch += 1
                problems.append("launch %d (%s) %s: ours %s, ncu %s" % (k, order[k], m, v, b[m]))
            else:
                equal[order[k]][0] += 1
print("%s | %d dispatches, %d/%d values equal to ncu's (%s); ncu names its workloads %s | %s" % (
    "PASS" if not problems and compared else "FAIL", len(ours), compared - mismatch, compared,
    ", ".join("%s %d/%d" % (g, e[0], e[1]) for g, e in sorted(equal.items())), sorted(set(ncu_names))[:4],
    "; ".join(problems[:3]) or "-"))

sys.exit(0 if not problems and compared else 1)
