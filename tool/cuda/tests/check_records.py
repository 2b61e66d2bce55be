#!/usr/bin/env python3
"""Checks one process's gorocprof record file from a kernel-replay run on a GPU.

Every dispatch must carry passes 0..P-1 exactly once under one dispatch_id; a metric collected on
several passes must have the same value on each (the metrics used are deterministic); no value may
be missing; no fatal line, no decline. With --ncu, each (kernel, metric) must also have the values
Nsight Compute measured for the same kernels. Prints one JSON object with the findings; exits 1 on
any failure.
"""
import argparse
import csv
import glob
import json
import math
import os
import statistics
import sys
from collections import defaultdict

# Apps whose dispatch count is fixed by construction: graphs.cu runs 33 kernel nodes from graph launches
# (five launches of three, three of two, two of four, two of two), each its own dispatch.
EXPECTED_DISPATCHES = {"graphs": 33}


def load_records(run_dir):
    files = sorted(glob.glob(os.path.join(run_dir, "records", "*.ndjson")))
    lines = []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            for raw in fh:
                raw = raw.strip()
                if raw:
                    lines.append(json.loads(raw))
    return files, lines


def within(ours, theirs, tolerance):
    """Our median is within `tolerance` of ncu's median, or inside the range ncu's own values span, widened by
    `tolerance`. Cache-sensitive counters with warm caches (--cache-control none) spread over ncu's own passes
    and dispatches by more than 5% (saxpy's L2 read sectors: 290k-328k in one ncu run), and counts near zero
    (DRAM bytes read with warm caches: 0, 256, 2304) have no meaningful relative difference: there ncu's spread
    is the measure of agreement."""
    a, b = statistics.median(ours), statistics.median(theirs)
    if abs(a - b) <= tolerance * abs(b):
        return True
    return min(theirs) * (1 - tolerance) <= a <= max(theirs) * (1 + tolerance)


def ncu_values(path, as_lists=False):
    """{(mangled name, grid, block): {metric: set(values)}} from `ncu --csv --page raw` output (every value in
    a list with as_lists)."""
    out = defaultdict(lambda: defaultdict(list if as_lists else set))
    with open(path, encoding="utf-8", errors="replace") as fh:
        rows = [l for l in fh if l.startswith('"')]
    if not rows:
        return out
    reader = csv.reader(rows)
    header = next(reader)
    for row in reader:
        if len(row) != len(header) or row[0] == "":  # the units row has an empty ID
            continue
        rec = dict(zip(header, row))
        name = (rec.get("Kernel Name", ""), rec.get("Grid Size", ""), rec.get("Block Size", ""))
        for k, v in rec.items():
            if "__" in k and "." in k:
                try:
                    x = float(v.replace(",", ""))
                except ValueError:
                    continue
                if as_lists:
                    out[name][k].append(x)
                else:
                    out[name][k].add(x)
    return out


def check_durations(by_dispatch, metric, problems, floor_ns=10000, tolerance=0.10):
    """Compares every pass's end - start with the dispatch's `metric` value; returns how many passes were
    compared (kernels under floor_ns are left out, a dispatch without the value too)."""
    compared = 0
    for did, recs in sorted(by_dispatch.items()):
        want = [v for r in recs for c in r.get("counters") or [] if c["name"] == metric for v in c["values"]
                if v is not None]
        if not want or want[0] < floor_ns:
            continue
        for r in recs:
            compared += 1
            got = r["end"] - r["start"]
            if abs(got - want[0]) > tolerance * want[0]:
                problems.append("dispatch %d pass %d lasted %d ns, %s says %d" % (did, r["pass"], got, metric, want[0]))
    if compared == 0:
        problems.append("no dispatch with %s of %d ns or more to compare durations with" % (metric, floor_ns))
    return compared


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("--passes", type=int, required=True)
    ap.add_argument("--ncu", help="ncu --csv --page raw output to compare with")
    ap.add_argument("--app", default="")
    ap.add_argument("--tolerance", type=float, default=0.0,
                    help="with --ncu: each (kernel, metric) median may differ from ncu's median by this fraction "
                         "(cache-sensitive counters); 0, the default, wants every value to be one ncu saw")
    ap.add_argument("--durations", metavar="METRIC",
                    help="a duration counter in ns (gpu__time_duration.sum): every pass of a dispatch whose kernel "
                         "ran 10 us or more must last within 10%% of it")
    args = ap.parse_args()

    files, lines = load_records(args.run_dir)
    problems = []
    if not files:
        problems.append("no record file")
    kernels = {}
    by_dispatch = defaultdict(list)
    declines, fatals, warnings, ends = [], [], [], []
    for r in lines:
        t = r.get("t")
        if t == "kernel":
            kernels[r["kernel_id"]] = r
        elif t == "dispatch":
            by_dispatch[r["dispatch_id"]].append(r)
        elif t == "decline":
            declines.append(r)
        elif t == "fatal":
            fatals.append(r["message"])
        elif t == "warning":
            warnings.append(r["message"])
        elif t == "end":
            ends.append(r)
    if not ends:
        problems.append("no end record (process did not exit normally)")
    if fatals:
        problems.append("fatal: " + "; ".join(fatals[:3]))
    if declines:
        problems.append("%d declined dispatches, first: %s" % (len(declines), declines[0]["reason"]))
    if not by_dispatch:
        problems.append("no dispatch records")
    want = EXPECTED_DISPATCHES.get(args.app)
    if want is not None and len(by_dispatch) != want:
        problems.append("%d dispatches, %s runs %d kernels" % (len(by_dispatch), args.app, want))

    ours = defaultdict(lambda: defaultdict(set))  # kernel name -> metric -> values
    ours_all = defaultdict(lambda: defaultdict(list))  # the same, every value (for medians)
    mismatched_passes = 0
    for did, recs in sorted(by_dispatch.items()):
        passes = sorted(r["pass"] for r in recs)
        if passes != list(range(args.passes)) or any(r["passes"] != args.passes for r in recs):
            problems.append("dispatch %d has passes %s (want 0..%d)" % (did, passes, args.passes - 1))
            continue
        per_metric = defaultdict(set)
        for r in recs:
            g, w = r["grid"], r["workgroup"]
            name = (kernels.get(r["kernel_id"], {}).get("name", "?"),
                    "(%d, %d, %d)" % tuple(g[i] // max(w[i], 1) for i in range(3)), "(%d, %d, %d)" % tuple(w))
            if r["end"] < r["start"]:
                problems.append("dispatch %d pass %d ends before it starts" % (did, r["pass"]))
            for c in r.get("counters") or []:
                for v in c["values"]:
                    if v is None or (isinstance(v, float) and math.isnan(v)):
                        problems.append("dispatch %d pass %d: %s has no value" % (did, r["pass"], c["name"]))
                    else:
                        per_metric[c["name"]].add(float(v))
                        ours[name][c["name"]].add(float(v))
                        ours_all[name][c["name"]].append(float(v))
        for m, vals in per_metric.items():
            if len(vals) > 1:
                mismatched_passes += 1
                problems.append("dispatch %d: %s differs across passes: %s" % (did, m, sorted(vals)))

    timed = check_durations(by_dispatch, args.durations, problems) if args.durations else None

    compared, ncu_mismatch = 0, 0
    ncu_problems = []
    if args.ncu:
        theirs, theirs_all = ncu_values(args.ncu), ncu_values(args.ncu, as_lists=True)
        if not theirs:
            problems.append("ncu output has no kernel rows")
        for kname, metrics in sorted(ours.items()):
            if kname not in theirs:
                ncu_problems.append("kernel %s not in ncu output" % str(kname)[:90])
                continue
            for m, vals in sorted(metrics.items()):
                if m not in theirs[kname]:
                    continue
                compared += 1
                # The same kernel and shape may run on different data sizes: every value we saw must be
                # one ncu saw for that kernel and shape (or, with a tolerance, the medians must be close).
                if args.tolerance > 0:
                    close = within(ours_all[kname][m], theirs_all[kname][m], args.tolerance)
                else:
                    close = vals <= theirs[kname][m]
                if not close:
                    ncu_mismatch += 1
                    ncu_problems.append("%s %s: ours %s, ncu %s" % (str(kname)[:90], m, sorted(vals)[:4], sorted(theirs[kname][m])[:4]))
    problems = ncu_problems + problems

    summary = {
        "app": args.app,
        "dispatches": len(by_dispatch),
        "pass_lines": sum(len(v) for v in by_dispatch.values()),
        "passes": args.passes,
        "declined": len(declines),
        "warnings": warnings[:5],
        "values": {k[0][:40] + k[1]: {m: sorted(v)[:3] for m, v in ms.items()} for k, ms in sorted(ours.items())[:6]},
        "durations_compared": timed,
        "ncu_compared": compared,
        "ncu_mismatch": ncu_mismatch,
        "problems": problems[:20],
        "ok": not problems,
    }
    print(json.dumps(summary))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
