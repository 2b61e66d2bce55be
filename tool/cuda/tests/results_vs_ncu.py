#!/usr/bin/env python3
"""Compares a front end's results.json with Nsight Compute's raw CSV for the same app.

Each (kernel, counter) whose name matches --metrics must have only values ncu measured for that kernel.
Prints one line: "N/M equal" (the bench's cell); with --passes P it also checks that every dispatch has
replay passes 0..P-1 exactly once and that no value is empty, prefixes PASS or FAIL, and exits 1 on FAIL.
Used by scripts/gpu-bench.sh and the switch section of scripts/gpu-test.sh.
"""
import argparse
import collections
import csv
import json
import re
import sys


def ours(path, keep):
    doc = json.load(open(path))["rocprofiler-sdk-tool"][0]
    names = {k["kernel_id"]: k["kernel_name"] for k in doc["kernel_symbols"]}
    cname = {c["id"]["handle"]: c["name"] for c in doc["counters"]}
    passes, empty, values = collections.defaultdict(list), 0, collections.defaultdict(set)
    for r in doc["callback_records"]["counter_collection"]:
        info = r["dispatch_data"]["dispatch_info"]
        passes[info["dispatch_id"]].append(r.get("replay_pass"))
        for v in r["records"]:
            name = cname[v["counter_id"]["handle"]]
            if v.get("value") is None:
                empty += 1
            elif keep.search(name):
                values[(names[info["kernel_id"]], name)].add(float(v["value"]))
    return passes, empty, values


def theirs(path, keep):
    values = collections.defaultdict(set)
    rows = csv.reader(line for line in open(path) if line.startswith('"'))
    head = next(rows)
    for row in rows:
        rec = dict(zip(head, row))
        for name, val in rec.items():
            if "__" in name and keep.search(name) and val:
                try:
                    values[(rec["Kernel Name"], name)].add(float(val.replace(",", "")))
                except ValueError:  # the units row
                    pass
    return values


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("ncu_csv")
    ap.add_argument("--metrics", default=".", help="regular expression of the counters compared")
    ap.add_argument("--passes", type=int, default=0, help="replay passes every dispatch must have")
    a = ap.parse_args()
    keep = re.compile(a.metrics)
    try:
        passes, empty, mine = ours(a.results, keep)
    except (OSError, ValueError, KeyError) as e:
        print("%sno results (%s: %s)" % ("FAIL: " if a.passes else "", type(e).__name__, e))
        return 1
    ncu = theirs(a.ncu_csv, keep)
    same = sum(1 for key, vals in mine.items() if key in ncu and vals <= ncu[key])
    line = "%d/%d equal" % (same, len(mine))
    if not a.passes:
        print(line)
        return 0
    want = list(range(a.passes))
    wrong = sum(1 for p in passes.values() if sorted(p) != want)
    ok = wrong == 0 and empty == 0 and mine and same == len(mine)
    print("%s: %d dispatches, %d without passes 0..%d, %d empty values, values equal to ncu %s"
          % ("PASS" if ok else "FAIL", len(passes), wrong, a.passes - 1, empty, line))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
