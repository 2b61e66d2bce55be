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
    size_t managed = l.managed ? 1 : 0;
    if (!l.allocs_listed) tracker_.restorable(cs.ctx, &allocs, &managed);  // else listed at ENTER
    l.managed = managed != 0;
    snapshot_set(l, &allocs);
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

void CudaPort::snapshot_set(Launch& l, std::vector<Allocation>* allocs) {
    ContextState& cs = *l.cs;
    // Managed memory is neither scanned nor restored, and may hold the only copy of an address. Inside a
    // window across dispatches a small footprint is copied whole: the scan is a kernel, which would be a range.
    if (!snapshot_scans(*allocs, copies_all(l), l.lasting_planned)) return;
    PhaseTimer timer(Phase::Reach);
    cs.reached.assign(allocs->size(), 0);
    if (l.graph) {
        if (!mark_workload(*allocs, l.graph_reach, l.graph_writes, &cs.reached)) return;
    } else {
        // A kernel names its own module's variables without an address in its arguments; another module's
        // are reachable only through an address (in the arguments or in reached memory).
        mark_module_globals(*allocs, l.module, &cs.reached);
        if (!mark_arguments(*allocs, l.params, l.extra, *l.param_slots, &cs.reached)) return;
    }
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
    else if (join_lasting(l, group)) {
    } else if (l.shared) {
        flushed = arm_shared(l);
    } else {
        flushed = arm_counters(l, group, 0, l.snapshot_planned && l.early_snapshot);
    }
    if (!flushed) flush_caches(l);
    record_start(*l.cs, l.stream);
    l.app_issue_ns = core::now_ns();
}

void CudaPort::plan_shared(Launch& l) {
    ContextState& cs = *l.cs;
    l.shared = false;
    l.hw_passes = 0;
    if (l.graph || !counters_usable() || !cs.counters || !cs.counters->union_runs()) return;
    l.shared = true;
    l.hw_passes = cs.counters->steady_passes();
}

void CudaPort::time_unprofiled(Launch& l) {
    // A dispatch in a window across dispatches lasts its ranges' gpu__time_duration.sum instead
    // (RangeCounters::timed): a run of the tool inside the window would be a range. So does a union-runs
    // dispatch whose configuration holds it.
    if (!options().unprofiled_time || !l.early_snapshot || l.lasting_planned) return;
    if (l.shared && l.cs->counters && l.cs->counters->timed()) return;
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
    const PortStatus back = restore_snapshot(static_cast<CudaSnapshot&>(*l.early_snapshot));
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
    if (l.lasting) cs.lasting.abandon();
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
    // A union-runs dispatch's passes after the first run nothing: memory stays as its last run left it.
    const Launch* l = static_cast<const Launch*>(d.backend_dispatch);
    if (l && l->shared) return PortStatus::success();
    return restore_snapshot(static_cast<CudaSnapshot&>(s));
}

PortStatus CudaPort::restore_snapshot(CudaSnapshot& snap) {
    if (!snap.copies) return PortStatus::success();
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
    if (!snap || !snap->copies) return;
    snap->cs->backup_in_use = false;  // the snapshot object stays with its context
}

PortStatus CudaPort::relaunch(const Launch& l) {
    if (l.graph) return run_graph(*l.graph, l.stream);  // a graph dispatch: the whole graph, every node once
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

    if (l.shared && pass != core::kNotReplayed && pass > 0) return submit_shared(l, group, std::move(rec));
    PortStatus st;
    const bool app = l.app_launch_pending;
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
        if (l.shared) {
            if (group) flushed = arm_shared(l);  // a graph's kernel node: its first pass is the tool's run
        } else if (!l.lasting && !(l.window && pass < l.window_end)) {
            if (l.window) flush_window(l);  // the window's passes are done: decode them before a new arm
            if (group) flushed = arm_counters(l, group, pass, true);
        }
        if (!flushed) flush_caches(l);
        record_start(cs, l.stream);
        rec.start_ns = core::now_ns();
        PhaseTimer timer(Phase::Relaunch);
        st = relaunch_measured(l);
        if (st.ok) st = cu(cuEventRecord(cs.ev_end, l.stream), "cuEventRecord");
        if (st.ok) st = wait_for_run(l, pass, /*timing=*/false);
    }
    if (!st.ok) {
        if (l.timed_out) return st;  // the counters wait for the unfinished run: not touched until it completes
        if (l.lasting && app) {
            cs.lasting.add_hole();  // the launch's range stays in the window; its pass is not recorded
        } else if (l.lasting) {
            cs.lasting.spoil();  // the relaunch may have failed after its flush: half a pass's ranges
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
    return finish_pass(d, l, pass, group, std::move(rec));
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

void CudaPort::report_availability_problem(RangeCounters& counters) {
    const std::string problem = counters.take_availability_cache_problem();
    if (!problem.empty()) report_note(problem);
}

}  // namespace gorocprof::cuda
