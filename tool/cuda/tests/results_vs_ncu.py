#!/usr/bin/env python3
"""Compares a front end's results.json with Nsight Compute's raw CSV for the same app.

Each (kernel, counter) whose name matches --metrics must have only values ncu measured for that kernel.
Prints one line: "N/M equal" (the bench's cell); with --passes P it also checks that every dispatch has
replay passes 0..P-1 exactly once and that no value is empty, prefixes PASS or FAIL, and exits 1 on FAIL.
--nonzero REGEX: counters that vary from run to run (L2, DRAM) cannot be compared exactly; for those,
every value of ours must be nonzero where every value of ncu's is (a pass measured with the wrong counter
configuration reads 0 on the H200). Used by scripts/gpu-bench.sh and the switch section of
scripts/gpu-test.sh.
"""
import argparse
import collections
import json
import re
import sys

from check_records import ncu_values  # the same directory


def ours(path, keep, loose):
    doc = json.load(open(path))["rocprofiler-sdk-tool"][0]
    names = {k["kernel_id"]: k["kernel_name"] for k in doc["kernel_symbols"]}
    cname = {c["id"]["handle"]: c["name"] for c in doc["counters"]}
    passes, empty = collections.defaultdict(list), 0
    values, other = collections.defaultdict(set), collections.defaultdict(set)
    for r in doc["callback_records"]["counter_collection"]:
        info = r["dispatch_data"]["dispatch_info"]
        passes[info["dispatch_id"]].append(r.get("replay_pass"))
        for v in r["records"]:
            name = cname[v["counter_id"]["handle"]]
            if v.get("value") is None:
                empty += 1
            elif keep.search(name):
                values[(names[info["kernel_id"]], name)].add(float(v["value"]))
            elif loose and loose.search(name):
                other[(names[info["kernel_id"]], name)].add(float(v["value"]))
    return passes, empty, values, other


def theirs(path, keep):
    """{(kernel, counter): values} over every launch configuration in ncu's CSV (check_records' reader)."""
    values = collections.defaultdict(set)
    for (kernel, _grid, _block), metrics in ncu_values(path).items():
        for name, vals in metrics.items():
            if keep.search(name):
                values[(kernel, name)] |= vals
    if not values:
        raise ValueError("no counter values in %s" % path)
    return values


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("ncu_csv")
    ap.add_argument("--metrics", default=".", help="regular expression of the counters compared")
    ap.add_argument("--passes", type=int, default=0, help="replay passes every dispatch must have")
    ap.add_argument("--nonzero", default="", help="regular expression of counters that must be nonzero where ncu's are")
    a = ap.parse_args()
    keep = re.compile(a.metrics)
    loose = re.compile(a.nonzero) if a.nonzero else None
    fail = "FAIL: " if a.passes else ""
    try:
        passes, empty, mine, other = ours(a.results, keep, loose)
    except (OSError, ValueError, KeyError) as e:
        print("%sno results (%s: %s)" % (fail, type(e).__name__, e))
        return 1
    try:
        ncu = theirs(a.ncu_csv, re.compile("|".join(x for x in (a.metrics, a.nonzero) if x)))
    except (OSError, ValueError) as e:
        print("%sno ncu values (%s: %s)" % (fail, type(e).__name__, e))
        return 1
    same = sum(1 for key, vals in mine.items() if key in ncu and vals <= ncu[key])
    line = "%d/%d equal" % (same, len(mine))
    checked = [key for key in other if key in ncu and min(ncu[key]) > 0]
    nonzero = sum(1 for key in checked if min(other[key]) > 0)
    if loose:
        line += ", %d/%d nonzero where ncu's are" % (nonzero, len(checked))
    if not a.passes:
        print(line)
        return 0
    want = list(range(a.passes))
    wrong = sum(1 for p in passes.values() if sorted(p) != want)
    ok = wrong == 0 and empty == 0 and mine and same == len(mine) and nonzero == len(checked)
    print("%s: %d dispatches, %d without passes 0..%d, %d empty values, values equal to ncu %s"
          % ("PASS" if ok else "FAIL", len(passes), wrong, a.passes - 1, empty, line))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
