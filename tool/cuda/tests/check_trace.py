#!/usr/bin/env python3
"""Checks the trace lines (docs/tracing.md) of tests/trace.cu's record file against what the app says it made.

The app prints `TRACE-EXPECT {json}`: its runtime calls by name, its own driver calls, its copies and memsets
by op, its NVTX calls by op, its kernel launches. The records must hold, for the traced domains:
- each runtime call exactly as often as the app made it (the tool's own calls never appear), and each of the
  app's driver calls at least as often (with the callbacks the runtime's own driver calls come on top; with
  --driver-within, for API calls from activity records, exactly as often, and no other driver op more often
  than the callbacks saw it in another run: the runtime's calls outside its API calls are lines too, the
  tool's never);
- each copy op exactly as often as the app made it, with agents as the op says (the CPU agent, type CPU, on
  the host side), device times inside the run and correlation ids of the app's copy calls on the same thread;
- each marker op as often as the app made it, ranges with start <= end, on two threads, no marker with an API
  call's correlation id;
- one logical dispatch per launch, each pass carrying the correlation id of a traced launch call of its thread.
With --same OTHER_RUN_DIR the op counts of every domain (or of those --same-domains names) must equal those of
another run of the app (a trace-only run against a kernel-replay run: replay adds no line). With the runtime domain
traced and the driver's not, the copies and dispatches of the app's own driver calls have correlation id 0, as
many as it made. Prints one JSON object; exits 1 on failure.
"""
import argparse
import collections
import glob
import json
import os
import sys

LAUNCH_OPS = ("cudaLaunchKernel", "cuLaunchKernel", "cuLaunchKernelEx", "cudaLaunchKernelExC")
COPY_CALL_PREFIXES = ("cudaMemcpy", "cudaMemset", "cuMemcpy", "cuMemset")


def load(run_dir):
    lines = []
    for f in sorted(glob.glob(os.path.join(run_dir, "records", "*.ndjson"))):
        with open(f, encoding="utf-8") as fh:
            lines += [json.loads(l) for l in fh if l.strip()]
    return lines


def expected(stdout_path):
    with open(stdout_path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.startswith("TRACE-EXPECT "):
                return json.loads(line[len("TRACE-EXPECT "):])
    return None


def op_counts(lines):
    out = collections.defaultdict(collections.Counter)
    for r in lines:
        if r["t"] in ("api", "marker"):
            out[r["domain"]][r["op"]] += 1
        elif r["t"] == "copy":
            out["MEMORY_COPY"][r["op"]] += 1
    return out


def direct_driver_call(r, domains):
    """A copy or dispatch of the app's own driver call when only the runtime domain is traced: no traced call
    issued it, so its correlation id is 0 (their number is checked against the app's driver calls)."""
    return "CUDA_DRIVER_API" not in domains and "CUDA_RUNTIME_API" in domains and r["correlation_id"] == 0


def check(lines, want, domains, within=None):
    problems = []
    facts = {}
    header = next((r for r in lines if r["t"] == "header"), None)
    end = next((r for r in lines if r["t"] == "end"), None)
    if header is None or end is None:
        return ["no header or no end record"], facts
    t0, t1 = header["init_time"], end["fini_time"]
    counts = op_counts(lines)
    api = [r for r in lines if r["t"] == "api"]
    by_corr = {}
    for r in api:
        if r["correlation_id"] in by_corr:
            problems.append("correlation id %d used twice" % r["correlation_id"])
        by_corr[r["correlation_id"]] = r
        if not (t0 <= r["start"] <= r["end"] <= t1):
            problems.append("api %s outside the run or ending before it starts" % r["op"])

    if "CUDA_RUNTIME_API" in domains:
        got = counts["CUDA_RUNTIME_API"]
        for op, n in sorted(want["runtime"].items()):
            if got[op] != n:
                problems.append("runtime %s: %d lines, the app made %d" % (op, got[op], n))
        facts["runtime_calls"] = sum(got.values())
    if "CUDA_DRIVER_API" in domains:
        got = counts["CUDA_DRIVER_API"]
        for op, n in sorted(want["driver"].items()):
            if got[op] < n or (within is not None and got[op] != n):
                problems.append("driver %s: %d lines, the app made %d itself" % (op, got[op], n))
        if within is not None:
            # The runtime's own driver calls outside its API calls (its start, module loading) are lines of
            # the process too; every other one would be the tool's.
            extra = {op: (n, within[op]) for op, n in got.items() if op not in want["driver"] and n > within[op]}
            if extra:
                problems.append("driver calls beyond the callbacks' run (ours, theirs): %s" %
                                json.dumps(extra, sort_keys=True)[:400])
        facts["driver_calls"] = sum(got.values())

    if "MEMORY_COPY" in domains:
        got = counts["MEMORY_COPY"]
        for op in sorted(set(want["copies"]) | set(got)):
            if got[op] != want["copies"].get(op, 0):
                problems.append("copy %s: %d lines, the app made %d" % (op, got[op], want["copies"].get(op, 0)))
        agents = {r["id"]: r for r in lines if r["t"] == "agent"}
        cpus = [a for a in agents.values() if a.get("type") == "CPU"]
        zero_copies = 0
        if not cpus:
            problems.append("no CPU agent record")
        for r in (r for r in lines if r["t"] == "copy"):
            src, dst = agents.get(r["src_agent_id"]), agents.get(r["dst_agent_id"])
            if src is None or dst is None:
                problems.append("copy %s names an agent with no record" % r["op"])
                continue
            kinds = {"MEMORY_COPY_HOST_TO_DEVICE": ("CPU", "GPU"), "MEMORY_COPY_DEVICE_TO_HOST": ("GPU", "CPU"),
                     "MEMORY_COPY_DEVICE_TO_DEVICE": ("GPU", "GPU"), "MEMORY_COPY_HOST_TO_HOST": ("CPU", "CPU"),
                     "MEMORY_SET": ("GPU", "GPU")}.get(r["op"])
            if kinds != (src.get("type"), dst.get("type")):
                problems.append("copy %s from a %s agent to a %s agent" % (r["op"], src.get("type"), dst.get("type")))
            if not (t0 <= r["start"] <= r["end"] <= t1):
                problems.append("copy %s outside the run or ending before it starts" % r["op"])
            if r["size"] <= 0:
                problems.append("copy %s of %d bytes" % (r["op"], r["size"]))
            if direct_driver_call(r, domains):
                zero_copies += 1
            elif domains & {"CUDA_RUNTIME_API", "CUDA_DRIVER_API"}:
                call = by_corr.get(r["correlation_id"])
                if call is None or not call["op"].startswith(COPY_CALL_PREFIXES) or call["thread_id"] != r["thread_id"]:
                    problems.append("copy %s: correlation id %d is not a copy call of its thread (%s)" % (
                        r["op"], r["correlation_id"], call["op"] if call else "no such call"))
                elif r["start"] < call["start"]:
                    problems.append("copy %s starts before its call %s" % (r["op"], call["op"]))
        facts["copies"] = dict(got)
        if "CUDA_RUNTIME_API" in domains and "CUDA_DRIVER_API" not in domains:
            want_zero = sum(n for op, n in want["driver"].items() if op.startswith(COPY_CALL_PREFIXES))
            if zero_copies != want_zero:
                problems.append("%d copies with no traced call, the app made %d copy calls of the driver's" % (
                    zero_copies, want_zero))

    if "MARKER_CORE_RANGE_API" in domains:
        got = counts["MARKER_CORE_RANGE_API"]
        for op in sorted(set(want["markers"]) | set(got)):
            if got[op] != want["markers"].get(op, 0):
                problems.append("marker %s: %d lines, the app made %d" % (op, got[op], want["markers"].get(op, 0)))
        marks = [r for r in lines if r["t"] == "marker"]
        clash = sorted({r["correlation_id"] for r in marks} & set(by_corr))
        if clash:
            problems.append("markers share correlation ids with API calls: %s" % clash[:5])
        for r in marks:
            if not (t0 <= r["start"] <= r["end"] <= t1):
                problems.append("marker %r outside the run or ending before it starts" % r.get("message"))
            if r["op"] == "nvtxMarkA" and r["start"] != r["end"]:
                problems.append("mark %r is not an instant" % r.get("message"))
        threads = {r["thread_id"] for r in marks}
        if len(threads) != want["threads"]:
            problems.append("markers on %d threads, the app used %d" % (len(threads), want["threads"]))
        facts["messages"] = sorted({r.get("message", "") for r in marks})

    dispatches = [r for r in lines if r["t"] == "dispatch"]
    ids = {r["dispatch_id"] for r in dispatches}
    if len(ids) != want["launches"]:
        problems.append("%d logical dispatches, the app launched %d kernels" % (len(ids), want["launches"]))
    if domains & {"CUDA_RUNTIME_API", "CUDA_DRIVER_API"}:
        seen = {}
        zero = set()
        for r in dispatches:
            if direct_driver_call(r, domains):
                zero.add(r["dispatch_id"])
                continue
            call = by_corr.get(r["correlation_id"])
            if call is None or call["op"] not in LAUNCH_OPS or call["thread_id"] != r["thread_id"]:
                problems.append("dispatch %d: correlation id %d is not a launch call of its thread (%s)" % (
                    r["dispatch_id"], r["correlation_id"], call["op"] if call else "no such call"))
            if seen.setdefault(r["dispatch_id"], r["correlation_id"]) != r["correlation_id"]:
                problems.append("dispatch %d: passes with different correlation ids" % r["dispatch_id"])
        if len(set(seen.values())) != len(seen):
            problems.append("two dispatches share a launch call's correlation id")
        if "CUDA_DRIVER_API" not in domains:
            want_zero = sum(n for op, n in want["driver"].items() if op in LAUNCH_OPS)
            if len(zero) != want_zero:
                problems.append("%d dispatches with no traced call, the app made %d launches of the driver's" % (
                    len(zero), want_zero))
    facts["dispatches"] = len(ids)
    facts["passes"] = len(dispatches)
    return problems, facts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("stdout", help="the app's standard output (TRACE-EXPECT line)")
    ap.add_argument("--domains", required=True, help="comma-separated trace domains of the plan")
    ap.add_argument("--same", help="another run directory of the app whose op counts must be the same")
    ap.add_argument("--driver-within", metavar="CALLBACK_RUN_DIR",
                    help="API calls from activity records: the app's driver calls exactly, and no driver op more "
                         "often than in this run of the app with the API calls from callbacks")
    ap.add_argument("--same-domains", help="comma-separated: compare only these domains with --same's run")
    a = ap.parse_args()
    domains = set(a.domains.split(","))
    want = expected(a.stdout)
    lines = load(a.run_dir)
    if want is None:
        problems, facts = ["the app printed no TRACE-EXPECT line"], {}
    else:
        within = op_counts(load(a.driver_within))["CUDA_DRIVER_API"] if a.driver_within else None
        problems, facts = check(lines, want, domains, within)
    if a.same:
        ours, theirs = op_counts(lines), op_counts(load(a.same))
        only = set(a.same_domains.split(",")) if a.same_domains else None
        for d in sorted(set(ours) | set(theirs)):
            if only is not None and d not in only:
                continue
            if ours[d] != theirs[d]:
                diff = {op: (ours[d][op], theirs[d][op]) for op in set(ours[d]) | set(theirs[d]) if ours[d][op] != theirs[d][op]}
                problems.append("%s differs from %s: %s" % (d, a.same, json.dumps(diff, sort_keys=True)))
        facts["same_as"] = os.path.basename(a.same.rstrip("/"))
    fatal = [r for r in lines if r["t"] in ("fatal", "warning") and "trace" in json.dumps(r)]
    if fatal:
        problems.append("tracing warnings: %s" % "; ".join(r.get("message", "") for r in fatal[:3]))
    print(json.dumps({"ok": not problems, "problems": problems[:12], "facts": facts}, sort_keys=True))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
