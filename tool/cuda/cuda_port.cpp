#include "cuda_port.hpp"

#include "bounded_wait.hpp"
#include "phase_stats.hpp"
#include "options.hpp"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace gorocprof::cuda {
namespace {

// Keep this much device memory free for the application when the backup goes to the device.
constexpr size_t kDeviceHeadroom = size_t(256) << 20;

std::string gib(size_t bytes) { return std::to_string(bytes) + " bytes"; }

}  // namespace

PortStatus CudaPort::take_snapshot(Launch& l, replay::Snapshot** out) {
    ContextState& cs = *l.cs;
    if (cs.backup_in_use)
        return PortStatus::failure("DevicePort::snapshot", "the context's backup is held by another dispatch");
    CudaSnapshot* snap = &cs.snapshot;  // the context's one snapshot, reused
    snap->cs = &cs;
    snap->on_device = true;
    std::vector<Allocation>& allocs = cs.allocs;  // kept per context for its capacity
    size_t managed = 0;
    tracker_.restorable(cs.ctx, &allocs, &managed);
    snapshot_set(l, &allocs, managed != 0);
    PhaseTimer timer(Phase::Snapshot);
    const size_t total = plan_backup(allocs, &snap->saved);
    if (PhaseStats::instance().on())
        for (const SavedRange& r : snap->saved)
            PhaseStats::instance().add_snapshot_copy(static_cast<int>(r.kind), r.allocations, r.alloc_bytes);
    PortStatus st;
    if (total > cs.device_backup_size) {
        if (cs.device_backup) {
            const PortStatus freed = cu(cuMemFree(cs.device_backup), "cuMemFree");
            if (!freed.ok) report_note("a context's smaller device backup was not freed: " + freed.message());
            cs.device_backup = 0;
            cs.device_backup_size = 0;
        }
        size_t free_b = 0, total_b = 0;
        st = cu(cuMemGetInfo(&free_b, &total_b), "cuMemGetInfo");
        if (!st.ok) return st;
        std::string device_why = gib(free_b) + " free on device";
        if (total + kDeviceHeadroom <= free_b) {
            st = cu(cuMemAlloc(&cs.device_backup, total), "cuMemAlloc");
            if (st.ok) cs.device_backup_size = total;
            else device_why = "device backup " + st.message();
        }
        if (total > cs.device_backup_size) {
            snap->on_device = false;
            if (total > cs.host_backup_size) {
                if (cs.host_backup) {
                    const PortStatus freed = cu(cuMemFreeHost(cs.host_backup), "cuMemFreeHost");
                    if (!freed.ok) report_note("a context's smaller host backup was not freed: " + freed.message());
                }
                cs.host_backup = nullptr;
                cs.host_backup_size = 0;
                st = cu(cuMemHostAlloc(&cs.host_backup, total, 0), "cuMemHostAlloc");
                if (!st.ok)
                    return PortStatus::failure("DevicePort::snapshot",
                                               "snapshot needs " + gib(total) + " of backup; " + device_why +
                                                   ", pinned host allocation failed (" + st.message() + ")");
                cs.host_backup_size = total;
            }
        }
    }
    // One driver call per range, on purpose: cuMemcpyBatchAsync is no faster, and inside a counter window its
    // copies show up as ranges (docs/perf.md, "Measurements behind tool/cuda's choices").
    timer.bytes(total);
    timer.items(snap->saved.size());
    for (const SavedRange& s : snap->saved) {
        st = snap->on_device
                 ? cu(cuMemcpyDtoDAsync(cs.device_backup + s.offset, s.base, s.size, cs.copy_stream), "cuMemcpyDtoDAsync")
                 : cu(cuMemcpyDtoHAsync(static_cast<char*>(cs.host_backup) + s.offset, s.base, s.size, cs.copy_stream),
                      "cuMemcpyDtoHAsync");
        if (!st.ok) {
            // Not through cu(): the failed copy is what is reported; this only waits for the copies before it.
            cuStreamSynchronize(cs.copy_stream);
            st.reason += " (saving " + gib(s.size) + " at 0x" + [&] {
                char b[32];
                std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(s.base));
                return std::string(b);
            }() + ")";
            return st;
        }
    }
    st = cu(cuStreamSynchronize(cs.copy_stream), "cuStreamSynchronize");
    if (!st.ok) return st;
    cs.backup_in_use = true;
    *out = snap;
    return PortStatus::success();
}

void CudaPort::snapshot_set(Launch& l, std::vector<Allocation>* allocs, bool managed) {
    const bool everything = options().restore_all;
    ContextState& cs = *l.cs;
    // Managed memory is neither scanned nor restored, and may hold the only copy of an address.
    if (everything || managed || reach_off_.load(std::memory_order_relaxed) || !l.param_slots || allocs->empty()) return;
    PhaseTimer timer(Phase::Reach);
    cs.reached.assign(allocs->size(), 0);
    // A kernel names its own module's variables without an address in its arguments; another module's
    // are reachable only through an address (in the arguments or in reached memory).
    mark_module_globals(*allocs, l.module, &cs.reached);
    if (!mark_arguments(*allocs, l.params, l.extra, *l.param_slots, &cs.reached)) return;
    uint64_t scanned = 0;
    PortStatus st = cs.reach.close(*allocs, &cs.reached, cs.copy_stream, cs.ordinal, &scanned);
    timer.bytes(scanned);
    if (!st.ok) {
        reach_off_ = true;
        report_note("snapshots copy every tracked allocation from now on: finding what a launch can reach failed (" +
                    st.message() + ")");
        return;
    }
    size_t kept = 0;
    for (size_t i = 0; i < allocs->size(); ++i)
        if (cs.reached[i]) (*allocs)[kept++] = (*allocs)[i];
    allocs->resize(kept);
    timer.items(kept);
}

void CudaPort::record_start(ContextState& cs, CUstream stream) {
    const PortStatus st = cu(cuEventRecord(cs.ev_start, stream), "cuEventRecord");
    if (!st.ok) report_note("a pass's start is not recorded on the GPU (its duration is not right): " + st.message());
}

void CudaPort::arm_app_launch(Launch& l) {
    const Group* group = core::Core::instance().counters_for_current_pass(l.agent_index);
    // Pass 0 is the application's own launch: a window can open here only when the snapshot was taken
    // before it (the dispatch will be replayed).
    bool flushed = false;
    if (!group || group->empty()) close_lasting(*l.cs);  // its launch must not land in the window unowned
    else if (!join_lasting(l, group)) flushed = arm_counters(l, group, 0, l.snapshot_planned && l.early_snapshot);
    if (!flushed) flush_caches(l);
    record_start(*l.cs, l.stream);
    l.app_issue_ns = core::now_ns();
}

void CudaPort::time_unprofiled(Launch& l) {
    if (!options().unprofiled_time || !l.early_snapshot) return;
    ContextState& cs = *l.cs;
    PhaseTimer timer(Phase::Unprofiled);
    flush_caches(l);
    PortStatus st = cu(cuEventRecord(cs.ev_start, l.stream), "cuEventRecord");
    if (st.ok) st = relaunch(l);
    if (st.ok) st = cu(cuEventRecord(cs.ev_end, l.stream), "cuEventRecord");
    if (st.ok) st = wait_for_run(l, 0, /*timing=*/true);
    if (l.timed_out) {
        abandon_timing_run(l, st);
        return;
    }
    float ms = 0;
    if (st.ok) st = cu(cuEventElapsedTime(&ms, cs.ev_start, cs.ev_end), "cuEventElapsedTime");
    if (st.ok) l.kernel_ns = static_cast<int64_t>(static_cast<double>(ms) * 1e6);
    // The run changed what the kernel can reach: back to the snapshot before the passes, whatever happened.
    const PortStatus back = restore(replay::Dispatch{}, *l.early_snapshot);
    if (!back.ok) {
        l.kernel_ns = -1;
        core::Core::instance().fatal("the timing run of a dispatch could not be undone (" + back.message() +
                                     "): its passes start from memory the kernel already changed once");
    } else if (!st.ok) {
        report_note("the kernel's own time is not measured, passes report their event time: " + st.message());
    }
}

void CudaPort::abandon_timing_run(Launch& l, const PortStatus& why) {
    ContextState& cs = *l.cs;
    auto& snap = static_cast<CudaSnapshot&>(*l.early_snapshot);
    // The restore is queued behind the unfinished run on the launch's stream, so the application's launch
    // (queued next by the driver) still starts from the snapshot; the backup is not reused before it ran,
    // because nothing of this context is snapshot again until ev_unfinished (recorded after it) completes.
    PortStatus st = queue_restore(snap, l.stream);
    if (st.ok) st = cu(cuEventRecord(cs.ev_unfinished, l.stream), "cuEventRecord");
    release(l.early_snapshot);
    l.early_snapshot = nullptr;
    l.snapshot_planned = false;
    l.early_snapshot_status = why;
    l.unwatched = why.message();
    report_note(l.unwatched);
    if (!st.ok)
        core::Core::instance().fatal(std::string(l.kernel_name) + ": the timing run that did not complete could not be "
                                     "undone (" + st.message() + "): the application's launch runs on memory that "
                                     "run changes");
}

PortStatus CudaPort::wait_for_run(Launch& l, uint64_t pass, bool timing) {
    ContextState& cs = *l.cs;
    // The single run of a dispatch that is not replayed is the application's own launch and nothing more:
    // waited for as without the tool (a communication kernel is not waited for at all: submit_unwatched).
    if (pass == core::kNotReplayed && !timing) return cu(cuEventSynchronize(cs.ev_end), "cuEventSynchronize");
    const int64_t bound = replay_bound_ns(options().replay_timeout_ns, l.kernel_ns);
    bool timed_out = false;
    const PortStatus st = wait_bounded(cs.ev_end, bound, &timed_out);
    if (!st.ok || !timed_out) return st;
    l.timed_out = true;
    // Decoding the window's passes would stop the Range Profiler, which waits for the unfinished run: they
    // are recorded with empty counters instead, and the counters are discarded once the run completes.
    for (PendingPass& p : cs.pending) {
        if (p.group) empty_samples(*p.group, &p.rec.counters);
        core::Core::instance().record_pass(std::move(p.rec));
    }
    cs.pending.clear();
    l.window = false;
    cs.unfinished = l.kernel_name;
    const PortStatus marked = cu(cuEventRecord(cs.ev_unfinished, l.stream), "cuEventRecord");
    const std::string run = timing ? "timing run (before pass 0)" : "pass " + std::to_string(pass);
    std::string why = std::string(l.kernel_name) + ": its " + run + " did not complete within " +
                      describe_bound(bound) + " (timeout guard, GOROCPROF_CUDA_REPLAY_TIMEOUT; by default max(1 s, " +
                      "100 x the kernel's unprofiled time)); the tool stops replaying it and leaves the run queued, " +
                      "and dispatches on device " + std::to_string(cs.ordinal) + " run once, unwatched, until it completes";
    if (!marked.ok) why += " (its end could not be marked: " + marked.message() + ")";
    return PortStatus::failure("timeout guard", why);
}

bool CudaPort::recovered(ContextState& cs) {
    if (cs.unfinished.empty()) return true;
    // Not through cu() first: "not ready" is the answer, not a failure.
    const CUresult r = cuEventQuery(cs.ev_unfinished);
    if (r == CUDA_ERROR_NOT_READY) return false;
    if (r != CUDA_SUCCESS) report_note("the end of an unfinished run is not known, its device is watched again: " +
                                       cu(r, "cuEventQuery").message());
    if (cs.counters) cs.counters->discard();
    report_note(cs.unfinished + ": the run the timeout guard left has completed; dispatches on device " +
                std::to_string(cs.ordinal) + " are replayed again");
    cs.unfinished.clear();
    return true;
}

bool CudaPort::may_join_lasting(const Launch& l, bool watched, bool replayed) {
    ContextState& cs = *l.cs;
    JoinFacts f;
    f.windows = options().windows && options().window_dispatches > 0 && !windows_off_.load(std::memory_order_relaxed);
    f.counters = counters_usable() && cs.counters;
    f.steady = f.windows && f.counters && cs.counters->steady();
    f.replayed = replayed;
    f.app_launch = l.app_launch_pending;
    f.unwatched = !watched;
    return may_last(f);
}

bool CudaPort::join_lasting(Launch& l, const Group* group) {
    ContextState& cs = *l.cs;
    l.lasting = false;
    if (!may_join_lasting(l, l.unwatched.empty(), l.snapshot_planned)) return false;
    if (cs.lasting.open() && !cs.lasting.full() && cs.counters->armed()) {
        l.lasting = true;  // the next range of the open window: nothing to arm
        return true;
    }
    close_lasting(cs);
    PhaseTimer timer(Phase::Arm);
    cs.lasting.set_capacity(options().window_dispatches);
    std::string note;
    const PortStatus st = cs.counters->arm(group, &note, cs.lasting.ranges());
    if (!note.empty()) report_note(note);
    if (!st.ok) {
        report_counter_problem(st);
        return true;  // nothing armed: the pass is recorded without counters, as arm_counters would leave it
    }
    cs.lasting.opened();
    l.lasting = true;
    return true;
}

void CudaPort::close_lasting(ContextState& cs) {
    if (!cs.lasting.open() || !cs.counters) return;
    PhaseTimer timer(Phase::Collect);
    core::Core& core = core::Core::instance();
    const PortStatus st = cs.lasting.close(
        *cs.counters, [&core](const core::DispatchFacts& facts, std::vector<PendingPass>& passes, size_t first,
                              size_t count, const replay::Outcome& outcome) {
            core.begin_dispatch(facts);
            for (size_t i = first; i < first + count; ++i) core.record_pass(std::move(passes[i].rec));
            core.end_dispatch(outcome);
        });
    if (!st.ok) {
        windows_off_ = true;  // ranges and passes no longer line up: every later pass gets its own window
        report_counter_problem(st);
    }
}

void CudaPort::launch_failed(Launch& l) {
    if (l.lasting) {
        // The cache flush queued before it is a range of the window that no pass owns, and half a pass's share:
        // the window ends with it, so that the ranges before it keep their passes.
        if (l.cs->flush.ready()) {
            l.cs->lasting.add_hole();
            close_lasting(*l.cs);
        }
        return;
    }
    if (l.unwatched.empty() && l.cs->counters && l.cs->counters->armed()) {
        std::vector<core::CounterSample> discard;
        l.cs->counters->collect(&discard);
    }
}

void CudaPort::end_lasting(Launch& l, const core::DispatchFacts& facts, const replay::Outcome& outcome) {
    l.cs->lasting.end_dispatch(facts, outcome);
}

bool CudaPort::arm_counters(Launch& l, const Group* group, uint64_t pass, bool may_window) {
    if (!counters_usable() || !l.cs->counters) return false;
    close_lasting(*l.cs);  // its ranges end before this arm's
    const size_t ranges = may_window ? open_window(l, pass) : 1;
    // The pass's flush before the Start: a kernel queued inside an armed session costs the host about 1 ms
    // (CUPTI's work per auto range), outside it a few tens of microseconds (docs/perf.md, attempt 14).
    const bool lead = l.cs->flush.ready() && l.cs->counters->flush_may_lead(group, ranges);
    if (lead) flush_caches(l);
    PhaseTimer timer(Phase::Arm);
    std::string note;
    PortStatus st = l.cs->counters->arm(group, &note, ranges, lead);
    if (!note.empty()) report_note(note);
    if (!st.ok) {
        l.window = false;  // nothing armed: the next pass arms its own
        report_counter_problem(st);
    }
    return lead;
}

size_t CudaPort::open_window(Launch& l, uint64_t pass) {
    l.window = false;
    if (!options().windows || windows_off_.load(std::memory_order_relaxed)) return 1;
    // The passes from this one that share a configuration: all of the dispatch's when the union of its
    // groups fits one hardware pass or is measured in sessions, else a run of them
    // (RangeCounters::passes_held).
    const size_t planned = core::Core::instance().passes_for_agent(l.agent_index).size();
    const size_t held = l.cs->counters->passes_held(pass, planned);
    if (held < 2) return 1;
    l.window = true;
    l.window_end = pass + held;
    l.cs->pending.clear();
    // One spare range: a kernel that is not a pass (a copy the driver runs as a kernel) then shows as a
    // range too many instead of silently shifting every later pass's values.
    return held + 1;
}

void CudaPort::flush_window(Launch& l) {
    ContextState& cs = *l.cs;
    l.window = false;
    PhaseTimer timer(Phase::Collect);
    cs.window_groups.clear();
    for (const PendingPass& p : cs.pending) cs.window_groups.push_back(p.group);
    // Union sessions cut short (the replay ended before the window's last pass, or a rerun failed): the
    // window is discarded, not decoded, and its passes get empty counters; windows stay on.
    const bool cut_short = cs.counters->sessions_incomplete();
    PortStatus st = cs.counters->collect_ranges(cs.window_groups, &cs.window_samples);
    const bool whole = st.ok && cs.window_samples.size() == cs.pending.size();
    if (!whole) {
        // Otherwise ranges and passes no longer line up one to one (a kernel this tool did not launch ran in
        // the window, or the decode failed): no value of this window can be trusted to its pass.
        if (!cut_short) windows_off_ = true;
        if (st.ok)
            st = PortStatus::failure("cuptiRangeProfilerDecodeData",
                                     "a window of " + std::to_string(cs.pending.size()) + " replay passes decoded " +
                                         std::to_string(cs.window_samples.size()) +
                                         " ranges; those passes' counters are empty and every later pass gets its "
                                         "own window");
        report_counter_problem(st);
    }
    for (size_t i = 0; i < cs.pending.size(); ++i) {
        PendingPass& p = cs.pending[i];
        if (whole) {
            p.rec.counters = std::move(cs.window_samples[i]);
        } else if (p.group) {
            empty_samples(*p.group, &p.rec.counters);
        }
        core::Core::instance().record_pass(std::move(p.rec));
    }
    cs.pending.clear();
}

void CudaPort::complete(const replay::Dispatch& d) {
    Launch& l = *static_cast<Launch*>(d.backend_dispatch);
    if (l.window) flush_window(l);
}

replay::PortStatus CudaPort::drain(const replay::Dispatch& d) {
    const Launch& l = *static_cast<const Launch*>(d.backend_dispatch);
    if (l.snapshot_planned) return PortStatus::success();  // drained at ENTER, before the app's launch
    if (!l.unwatched.empty()) return PortStatus::success();  // waiting could wait for a peer, or forever
    return cu(cuCtxSynchronize(), "cuCtxSynchronize");
}

replay::PortStatus CudaPort::snapshot(const replay::Dispatch& d, replay::Snapshot** out) {
    Launch& l = *static_cast<Launch*>(d.backend_dispatch);
    if (l.early_snapshot) {
        *out = l.early_snapshot;
        l.active_snapshot = l.early_snapshot;
        l.early_snapshot = nullptr;
        return PortStatus::success();
    }
    if (!l.early_snapshot_status.ok) return l.early_snapshot_status;
    return PortStatus::failure("DevicePort::snapshot",
                               "no snapshot was taken before the application's own launch (replay was not planned "
                               "for this agent at launch time)");
}

PortStatus CudaPort::queue_restore(CudaSnapshot& snap, CUstream stream) {
    ContextState& cs = *snap.cs;
    PhaseTimer timer(Phase::Restore);
    for (const SavedRange& v : snap.saved) {
        if (!tracker_.live(v.base, v.serial)) continue;  // freed, or freed and handed out again
        timer.bytes(v.size);
        timer.items(1);
        const PortStatus st =
            snap.on_device
                ? cu(cuMemcpyDtoDAsync(v.base, cs.device_backup + v.offset, v.size, stream), "cuMemcpyDtoDAsync")
                : cu(cuMemcpyHtoDAsync(v.base, static_cast<char*>(cs.host_backup) + v.offset, v.size, stream),
                     "cuMemcpyHtoDAsync");
        if (!st.ok) return st;
    }
    return PortStatus::success();
}

replay::PortStatus CudaPort::restore(const replay::Dispatch& d, replay::Snapshot& s) {
    auto& snap = static_cast<CudaSnapshot&>(s);
    CUstream copies = snap.cs->copy_stream;
    const PortStatus st = queue_restore(snap, copies);
    if (!st.ok) {
        // Not through cu(): the failed copy is what is reported; this only waits for the copies before it.
        cuStreamSynchronize(copies);
        return st;
    }
    return cu(cuStreamSynchronize(copies), "cuStreamSynchronize");
}

void CudaPort::release(replay::Snapshot* s) {
    auto* snap = static_cast<CudaSnapshot*>(s);
    if (!snap) return;
    snap->cs->backup_in_use = false;  // the snapshot object stays with its context
}

PortStatus CudaPort::relaunch(const Launch& l) {
    switch (l.api) {
    case LaunchApi::Kernel:
        return cu(cuLaunchKernel(l.f, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
                                 l.shared_bytes, l.stream, l.params, l.extra),
                  "cuLaunchKernel");
    case LaunchApi::Cooperative:
        return cu(cuLaunchCooperativeKernel(l.f, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
                                            l.shared_bytes, l.stream, l.params),
                  "cuLaunchCooperativeKernel");
    case LaunchApi::KernelEx:
        return cu(cuLaunchKernelEx(l.config, l.f, l.params, l.extra), "cuLaunchKernelEx");
    }
    return PortStatus::failure("relaunch", "unknown launch API");
}

void CudaPort::flush_caches(const Launch& l) {
    if (!l.cs->flush.ready()) return;
    PhaseTimer timer(Phase::Flush);
    timer.bytes(l.cs->flush.bytes());
    const PortStatus st = l.cs->flush.run(l.stream);
    // The pass's counters then come from the flush's range: the window's count check reports them empty.
    if (!st.ok) report_counter_problem(st);
}

void CudaPort::collect_counters(ContextState& cs, const Group* expected, std::vector<core::CounterSample>* out) {
    if (!cs.counters || !cs.counters->armed()) return;
    const Group* armed = cs.counters->armed();
    std::vector<core::CounterSample> samples;
    PortStatus st = cs.counters->collect(&samples);
    if (!st.ok) report_counter_problem(st);
    // A tool may switch counters off for this pass at PASS ENTER, after pass 0 was armed.
    if (armed == expected) *out = std::move(samples);
}

replay::PortStatus CudaPort::submit(const replay::Dispatch& d, uint64_t pass) {
    Launch& l = *static_cast<Launch*>(d.backend_dispatch);
    ContextState& cs = *l.cs;
    core::Core& core = core::Core::instance();
    const Group* group = core.counters_for_current_pass(l.agent_index);
    if (group && group->empty()) group = nullptr;

    core::PassRecord rec;
    const uint64_t planned = core.passes_for_agent(l.agent_index).size();
    rec.pass = pass;  // core::kNotReplayed for the single run: core numbers it
    rec.passes = pass == core::kNotReplayed ? 1 : (planned > pass ? planned : pass + 1);
    if (!l.unwatched.empty()) return submit_unwatched(l, group, std::move(rec));

    PortStatus st;
    if (l.app_launch_pending) {
        // Pass 0 (or the single run) is the application's launch, already issued by the driver.
        l.app_launch_pending = false;
        rec.start_ns = l.app_issue_ns;
        PhaseTimer timer(Phase::AppWait);
        st = wait_for_run(l, pass, /*timing=*/false);
    } else {
        // Inside an open window this pass is just the window's next range; otherwise it arms its own,
        // with a window for it and the passes after it that share its configuration.
        bool flushed = false;
        if (!(l.window && pass < l.window_end)) {
            if (l.window) flush_window(l);  // the window's passes are done: decode them before a new arm
            if (group) flushed = arm_counters(l, group, pass, true);
        }
        if (!flushed) flush_caches(l);
        record_start(cs, l.stream);
        rec.start_ns = core::now_ns();
        PhaseTimer timer(Phase::Relaunch);
        st = relaunch(l);
        if (st.ok) st = cu(cuEventRecord(cs.ev_end, l.stream), "cuEventRecord");
        if (st.ok) st = wait_for_run(l, pass, /*timing=*/false);
    }
    if (!st.ok) {
        if (l.timed_out) return st;  // the counters wait for the unfinished run: not touched until it completes
        if (l.lasting) {
            cs.lasting.add_hole();  // the launch's range stays in the window; its pass is not recorded
        } else if (l.window) {
            flush_window(l);  // the passes before this one keep their values
        } else {
            std::vector<core::CounterSample> discard;
            collect_counters(cs, nullptr, &discard);
        }
        return st;
    }
    float ms = 0;
    const PortStatus timed = cu(cuEventElapsedTime(&ms, cs.ev_start, cs.ev_end), "cuEventElapsedTime");
    if (!timed.ok) {
        ms = 0;
        report_note("a pass's duration is not known (0 is reported): " + timed.message());
    }
    rec.end_ns = rec.start_ns + (l.kernel_ns >= 0 ? l.kernel_ns : static_cast<int64_t>(static_cast<double>(ms) * 1e6));
    if (l.lasting) {
        cs.lasting.add_pass(std::move(rec), group);  // written when the window is decoded
        return PortStatus::success();
    }
    if (l.window) {
        // Decoded with the window's other passes, before the next arm or when the dispatch completes.
        PendingPass& p = cs.pending.emplace_back();
        p.rec = std::move(rec);
        p.group = group;
        // A window of union sessions: after its last pass, its kernels run again once per further hardware
        // pass (while the snapshot is still held), so that the decode has every counter.
        if (pass + 1 >= l.window_end && cs.counters && cs.counters->armed_passes() > 1) {
            PhaseTimer timer(Phase::StopExtra);
            finish_hardware_passes(d, l, cs.pending.size());
        }
        return PortStatus::success();
    }
    {
        PhaseTimer timer(Phase::StopExtra);
        finish_hardware_passes(d, l);
    }
    {
        PhaseTimer timer(Phase::Collect);
        collect_counters(cs, group, &rec.counters);
    }
    PhaseTimer timer(Phase::Record);
    core.record_pass(std::move(rec));
    return PortStatus::success();
}

PortStatus CudaPort::submit_unwatched(Launch& l, const Group* group, core::PassRecord&& rec) {
    if (l.app_launch_pending) {
        l.app_launch_pending = false;  // the driver issued it; it is not waited for
        rec.start_ns = l.app_issue_ns;
    } else {
        rec.start_ns = core::now_ns();
        const PortStatus st = relaunch(l);
        if (!st.ok) return st;
    }
    if (l.communication) {
        const PortStatus marked = cu(cuEventRecord(l.cs->ev_comm, l.stream), "cuEventRecord");
        if (marked.ok) l.cs->comm_pending = true;
        else report_note("a communication kernel's end is not marked (later kernels of its device may wait for it): " +
                         marked.message());
    }
    // Its end is not waited for, so its duration is not known: 0 (README.md, "Communication kernels").
    rec.end_ns = rec.start_ns;
    if (group) empty_samples(*group, &rec.counters);
    core::Core::instance().record_pass(std::move(rec));
    return PortStatus::success();
}

void CudaPort::finish_hardware_passes(const replay::Dispatch& d, Launch& l, size_t runs) {
    ContextState& cs = *l.cs;
    if (!cs.counters || !cs.counters->armed()) return;
    if (!l.active_snapshot) {
        // A dispatch that is not replayed has no snapshot to run the kernel again from: collect() then finds a
        // configuration's hardware passes incomplete and reports its counters empty, with the reason.
        bool all = true;
        const PortStatus st = cs.counters->stop(&all);
        if (!st.ok) report_counter_problem(st);
        return;
    }
    size_t sessions = 0;
    // The next hardware pass: the same kernels again, in the same order, each from the snapshot (range r of
    // every hardware pass belongs to the window's pass r).
    const PortStatus st = cs.counters->finish_sessions(
        [&]() -> PortStatus {
            PortStatus rs;
            for (size_t r = 0; rs.ok && r < runs; ++r) {
                rs = restore(d, *l.active_snapshot);
                if (rs.ok) flush_caches(l);
                if (rs.ok) rs = relaunch(l);
                if (rs.ok) rs = cu(cuCtxSynchronize(), "cuCtxSynchronize");
            }
            return rs;
        },
        &sessions);
    if (sessions > 0 && runs > 1)
        report_note("the counter groups do not fit one hardware pass together: each dispatch's passes are measured "
                    "as one configuration of " + std::to_string(sessions + 1) + " hardware passes, so every replay "
                    "pass runs the kernel " + std::to_string(sessions + 1) + " times (memory restored before each) "
                    "and each counter comes from the run of the hardware pass that holds it");
    else if (sessions > 0)
        report_note("the Range Profiler asked for " + std::to_string(sessions) +
                    " more kernel run(s) within one replay pass before all its hardware passes were submitted "
                    "(cuptiRangeProfilerStop isAllPassSubmitted); memory is restored before each");
    if (!st.ok) report_counter_problem(st);
}

void CudaPort::report_counter_problem(const PortStatus& st) {
    bool permission = st.reason.find("ERR_NVGPUCTRPERM") != std::string::npos;
    {
        std::lock_guard<std::mutex> lock(notes_mu_);
        if (!notes_.insert(st.call + '\n' + st.reason).second) return;
    }
    if (permission) {
        counters_off_ = true;
        core::Core::instance().fatal("counters: " + st.message() + "; no counters are collected in this process");
    } else {
        core::Core::instance().warn("counters: " + st.message());
    }
}

void CudaPort::report_note(const std::string& note) {
    {
        std::lock_guard<std::mutex> lock(notes_mu_);
        if (!notes_.insert(note).second) return;
    }
    core::Core::instance().warn(note);
}

}  // namespace gorocprof::cuda
