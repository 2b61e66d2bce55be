// The port's counter side (README.md, "Counters" and "Counter windows"): arming a pass or a window, the
// windows of a dispatch and those across dispatches (lasting_window.hpp), the cache flush before a pass,
// the further hardware passes of a configuration, and what a pass leaves once its kernel ran.
#include "cuda_port.hpp"

#include "options.hpp"
#include "phase_stats.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace gorocprof::cuda {

bool CudaPort::may_join_lasting(Launch& l, bool watched, bool replayed) {
    ContextState& cs = *l.cs;
    JoinFacts f;
    f.windows = options().windows && options().window_dispatches > 0 && !windows_off_.load(std::memory_order_relaxed);
    f.counters = counters_usable() && cs.counters;
    f.hw_passes = f.windows && f.counters ? cs.counters->steady_passes() : 0;
    f.steady = f.hw_passes > 0;
    f.replayed = replayed;
    f.shared = l.shared;
    f.app_launch = l.app_launch_pending;
    f.unwatched = !watched;
    f.capacity = options().window_dispatches;
    f.passes = replayed && !l.shared ? core::Core::instance().passes_for_agent(l.agent_index).size() : 1;
    if (replayed && f.steady && watched && f.app_launch) {  // the tracker is walked only for a candidate
        f.replayed_may = options().lasting_replayed;
        f.timed = cs.counters->timed();
        f.savable = savable(l);
        // A union-runs dispatch of one hardware pass takes no snapshot; one of several joins a window whose
        // snapshot copies the context's allocations whole.
        const bool copies = l.shared ? f.hw_passes > 1 && f.savable : f.timed;
        if (f.replayed_may && copies) {
            size_t managed = 0;
            tracker_.restorable(cs.ctx, &cs.allocs, &managed);
            l.allocs_listed = true;
            l.managed = managed != 0;
            f.scan = snapshot_scans(cs.allocs, copies_all(l), true);
        }
    }
    l.lasting_planned = may_last(f);
    return l.lasting_planned;
}

bool CudaPort::copies_all(const Launch& l) const {
    return options().restore_all || l.managed || reach_off_.load(std::memory_order_relaxed) ||
           (!l.graph && !l.param_slots);
}

namespace {

bool same_allocations(const std::vector<Allocation>& a, const std::vector<Allocation>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].base != b[i].base || a[i].size != b[i].size || a[i].serial != b[i].serial) return false;
    return true;
}

}  // namespace

bool CudaPort::joins_open_lasting(Launch& l) {
    ContextState& cs = *l.cs;
    const size_t passes = l.snapshot_planned && !l.shared ? core::Core::instance().passes_for_agent(l.agent_index).size() : 1;
    if (!cs.lasting.open() || !cs.lasting.room(passes) || !cs.counters->armed()) return false;
    // A window of several hardware passes runs its launches again from its snapshot: only over the memory
    // that snapshot copied.
    const bool reruns = l.shared && l.hw_passes > 1;
    if (reruns != cs.lasting.reruns()) return false;
    return !reruns || same_allocations(cs.allocs, cs.lasting_allocs);
}

bool CudaPort::prepare_lasting(Launch& l) {
    ContextState& cs = *l.cs;
    if (joins_open_lasting(l)) return true;
    close_lasting(cs);
    if (windows_off_.load(std::memory_order_relaxed)) return false;  // that window decoded wrong
    replay::Snapshot* snap = nullptr;
    const PortStatus st = take_snapshot(l, &snap);
    if (!st.ok) {
        report_note("a window across dispatches of several hardware passes could not save the memory it runs from (" +
                    st.message() + "): such dispatches take snapshots of their own");
        return false;
    }
    cs.lasting_snapshot = true;
    cs.lasting_allocs = cs.allocs;
    return true;
}

bool CudaPort::join_lasting(Launch& l, const Group* group) {
    ContextState& cs = *l.cs;
    l.lasting = false;
    if (!l.lasting_planned || windows_off_.load(std::memory_order_relaxed)) {
        if (!cs.lasting.open()) release_lasting_snapshot(cs);  // one prepare_lasting took for it
        return false;
    }
    if (joins_open_lasting(l)) {
        l.lasting = true;  // the next ranges of the open window: nothing to arm
        return true;
    }
    close_lasting(cs);
    if (windows_off_.load(std::memory_order_relaxed)) {  // that window decoded wrong
        release_lasting_snapshot(cs);
        return false;
    }
    PhaseTimer timer(Phase::Arm);
    cs.lasting.set_capacity(options().window_dispatches);
    std::string note;
    // Union runs: every range is the union's (each dispatch's passes read their groups from its one range).
    const Group* armed = l.shared && cs.counters->steady_config() ? cs.counters->steady_config() : group;
    const PortStatus st = cs.counters->arm(armed, &note, cs.lasting.ranges());
    if (!note.empty()) report_note(note);
    report_availability_problem(*cs.counters);
    if (!st.ok) {
        report_counter_problem(st);
        release_lasting_snapshot(cs);
        return true;  // nothing armed: the pass is recorded without counters, as arm_counters would leave it
    }
    cs.lasting.opened();
    cs.lasting.set_reruns(l.shared && l.hw_passes > 1);
    if (cs.lasting.reruns()) report_union_runs(l.hw_passes);
    l.lasting = true;
    return true;
}

void CudaPort::release_lasting_snapshot(ContextState& cs) {
    if (cs.lasting_snapshot) release(&cs.snapshot);
    cs.lasting_snapshot = false;
    cs.lasting_runs_used = 0;
}

void CudaPort::close_lasting(ContextState& cs) {
    if (!cs.lasting.open() || !cs.counters) return;
    PhaseTimer timer(Phase::Collect);
    core::Core& core = core::Core::instance();
    LastingWindow::Rerun rerun;
    if (cs.lasting.reruns()) rerun = [this, &cs](size_t) { return rerun_window(cs); };
    const PortStatus st = cs.lasting.close(
        *cs.counters,
        [&core](const core::DispatchFacts& facts, std::vector<PendingPass>& passes, size_t first, size_t count,
                const replay::Outcome& outcome) {
            core.begin_dispatch(facts);
            for (size_t i = first; i < first + count; ++i) core.record_pass(std::move(passes[i].rec));
            core.end_dispatch(outcome);
        },
        rerun);
    release_lasting_snapshot(cs);
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

bool CudaPort::savable(const Launch& l) {
    if (l.graph || !l.param_slots || l.extra) return false;
    if (!l.params && !l.param_slots->empty()) return false;
    return l.api != LaunchApi::KernelEx || l.config;
}

bool CudaPort::save_launch(const Launch& l) {
    if (!savable(l)) return false;
    ContextState& cs = *l.cs;
    if (cs.lasting_runs.size() <= cs.lasting_runs_used) cs.lasting_runs.emplace_back();
    SavedLaunch& s = cs.lasting_runs[cs.lasting_runs_used];
    s.api = l.api;
    s.f = l.f;
    for (int i = 0; i < 3; ++i) s.grid[i] = l.grid[i], s.block[i] = l.block[i];
    s.shared_bytes = l.shared_bytes;
    size_t end = 0;
    for (const ParamSlot& p : *l.param_slots) end = std::max(end, p.offset + p.size);
    s.args.resize(end);
    s.offsets.clear();
    for (size_t i = 0; i < l.param_slots->size(); ++i) {
        const ParamSlot& p = (*l.param_slots)[i];
        if (p.size) std::memcpy(s.args.data() + p.offset, l.params[i], p.size);
        s.offsets.push_back(p.offset);
    }
    s.attrs.clear();
    if (l.api == LaunchApi::KernelEx) {
        s.config = *l.config;
        if (l.config->attrs) s.attrs.assign(l.config->attrs, l.config->attrs + l.config->numAttrs);
    }
    ++cs.lasting_runs_used;
    return true;
}

PortStatus CudaPort::rerun_saved(ContextState& cs, SavedLaunch& s) {
    cs.rerun_params.resize(s.offsets.size());
    for (size_t i = 0; i < s.offsets.size(); ++i) cs.rerun_params[i] = s.args.data() + s.offsets[i];
    void** params = s.offsets.empty() ? nullptr : cs.rerun_params.data();
    // On the context's own stream: the application's may be gone by the time the window closes.
    switch (s.api) {
    case LaunchApi::Kernel:
        return cu(cuLaunchKernel(s.f, s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2],
                                 s.shared_bytes, cs.copy_stream, params, nullptr),
                  "cuLaunchKernel");
    case LaunchApi::Cooperative:
        return cu(cuLaunchCooperativeKernel(s.f, s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2],
                                            s.shared_bytes, cs.copy_stream, params),
                  "cuLaunchCooperativeKernel");
    case LaunchApi::KernelEx: {
        CUlaunchConfig c = s.config;
        c.hStream = cs.copy_stream;
        c.attrs = s.attrs.empty() ? nullptr : s.attrs.data();
        c.numAttrs = static_cast<unsigned>(s.attrs.size());
        return cu(cuLaunchKernelEx(&c, s.f, params, nullptr), "cuLaunchKernelEx");
    }
    }
    return PortStatus::failure("relaunch", "unknown launch API");
}

PortStatus CudaPort::rerun_window(ContextState& cs) {
    PhaseTimer timer(Phase::StopExtra);
    PortStatus st = restore_snapshot(cs.snapshot);
    for (size_t i = 0; st.ok && i < cs.lasting_runs_used; ++i) {
        // One flush per run, as in the first session, so that range r of every session is the same launch's.
        if (cs.flush.ready()) {
            PhaseTimer flush(Phase::Flush);
            flush.bytes(cs.flush.bytes());
            st = cs.flush.run(cs.copy_stream);
        }
        if (st.ok) st = rerun_saved(cs, cs.lasting_runs[i]);
    }
    if (st.ok) st = cu(cuStreamSynchronize(cs.copy_stream), "cuStreamSynchronize");
    if (!st.ok)
        core::Core::instance().fatal("a window across dispatches could not run its launches again for a further "
                                     "hardware pass (" + st.message() + "): device memory may differ from one run "
                                     "of each, and the window's counters are empty");
    return st;
}

void CudaPort::end_lasting(Launch& l, const core::DispatchFacts& facts, const replay::Outcome& outcome) {
    l.cs->lasting.end_dispatch(facts, outcome);
}

bool CudaPort::arm_counters(Launch& l, const Group* group, uint64_t pass, bool may_window) {
    if (!counters_usable() || !l.cs->counters) return false;
    close_lasting(*l.cs);  // its ranges end before this arm's
    const size_t ranges = may_window ? open_window(l, pass) : 1;
    // The pass's flush before the Start: a kernel queued inside an armed session costs the host far more
    // than outside one (CUPTI's work per auto range; docs/perf.md, attempt 14).
    const bool lead = l.cs->flush.ready() && l.cs->counters->flush_may_lead(group, ranges);
    if (lead) flush_caches(l);
    PhaseTimer timer(Phase::Arm);
    std::string note;
    PortStatus st = l.cs->counters->arm(group, &note, ranges, lead, l.graph ? l.graph_kernels : 1,
                                        l.graph && options().graph_user_range);
    if (!note.empty()) report_note(note);
    report_availability_problem(*l.cs->counters);
    if (!st.ok) {
        l.window = false;  // nothing armed: the next pass arms its own
        report_counter_problem(st);
    }
    return lead;
}

size_t CudaPort::open_window(Launch& l, uint64_t pass) {
    l.window = false;
    // A graph dispatch's pass is several kernels: each pass arms its own (RangeCounters::arm's `kernels`).
    if (l.graph || !options().windows || windows_off_.load(std::memory_order_relaxed)) return 1;
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

PortStatus CudaPort::relaunch_measured(const Launch& l) {
    // Only a graph dispatch's pass can be a user range (arm_counters); push and pop are no-ops otherwise.
    RangeCounters* rc = l.graph && counters_usable() ? l.cs->counters.get() : nullptr;
    if (rc) {
        const PortStatus pushed = rc->push_range();
        if (!pushed.ok) report_counter_problem(pushed);
    }
    const PortStatus st = relaunch(l);
    if (rc) {
        const PortStatus popped = rc->pop_range();
        if (!popped.ok) report_counter_problem(popped);
    }
    return st;
}

void CudaPort::report_union_runs(size_t hw_passes) {
    report_note("the counter groups' union needs " + std::to_string(hw_passes) + " hardware passes: each dispatch "
                "runs its kernel " + std::to_string(hw_passes) + " times (memory restored before each run after the "
                "first), and every replay pass reports its group from those runs");
}

bool CudaPort::arm_shared(Launch& l) {
    ContextState& cs = *l.cs;
    if (!counters_usable() || !cs.counters) return false;
    close_lasting(cs);  // its ranges end before this arm's
    const Group* config = cs.counters->steady_config();
    if (!config) return false;
    const bool lead = cs.flush.ready() && cs.counters->flush_may_lead(config, 1);
    if (lead) flush_caches(l);
    PhaseTimer timer(Phase::Arm);
    std::string note;
    const PortStatus st = cs.counters->arm(config, &note, 1, lead);
    if (!note.empty()) report_note(note);
    report_availability_problem(*cs.counters);
    if (!st.ok) report_counter_problem(st);
    return lead;
}

void CudaPort::finish_shared(const replay::Dispatch& d, Launch& l, core::PassRecord* rec) {
    ContextState& cs = *l.cs;
    {
        PhaseTimer timer(Phase::StopExtra);
        finish_hardware_passes(d, l);
    }
    cs.shared_samples.clear();
    if (cs.counters && cs.counters->armed()) {
        PhaseTimer timer(Phase::Collect);
        const PortStatus st = cs.counters->collect(&cs.shared_samples);
        if (!st.ok) report_counter_problem(st);
    }
    // Without a timing run, the run's own GPU time when the configuration measures it.
    if (l.kernel_ns < 0)
        for (const core::CounterSample& s : cs.shared_samples)
            if (s.counter && s.counter->name == RangeCounters::kDurationMetric && !s.values.empty() &&
                s.values[0] >= 0)
                rec->end_ns = rec->start_ns + static_cast<int64_t>(s.values[0] + 0.5);
    l.shared_start_ns = rec->start_ns;
    l.shared_end_ns = rec->end_ns;
}

replay::PortStatus CudaPort::submit_shared(Launch& l, const Group* group, core::PassRecord&& rec) {
    // The pass ran nothing: it shows the run that measured its counters.
    rec.start_ns = l.shared_start_ns;
    rec.end_ns = l.shared_end_ns;
    if (l.lasting) {
        l.cs->lasting.add_shared_pass(std::move(rec), group);  // reads its dispatch's range when decoded
        return PortStatus::success();
    }
    PhaseTimer timer(Phase::Record);
    if (group) pick_samples(*group, l.cs->shared_samples, &rec.counters);
    core::Core::instance().record_pass(std::move(rec));
    return PortStatus::success();
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

void CudaPort::finish_hardware_passes(const replay::Dispatch& d, Launch& l, const std::vector<const Group*>* window) {
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
    const size_t runs = window ? window->size() : 1;
    // The next hardware pass: the same kernels again, in the same order, each from the snapshot (range r of
    // every hardware pass belongs to the window's pass r), up to the last pass that session measures.
    const PortStatus st = cs.counters->finish_sessions(
        [&](size_t session) -> PortStatus {
            PortStatus rs;
            const size_t n = window ? cs.counters->session_runs(session, *window) : 1;
            for (size_t r = 0; rs.ok && r < n; ++r) {
                rs = restore_snapshot(static_cast<CudaSnapshot&>(*l.active_snapshot));
                if (rs.ok) flush_caches(l);
                if (rs.ok) rs = relaunch_measured(l);
                if (rs.ok) rs = cu(cuCtxSynchronize(), "cuCtxSynchronize");
            }
            return rs;
        },
        &sessions);
    if (sessions > 0 && l.shared)
        report_union_runs(sessions + 1);
    else if (sessions > 0 && runs > 1)
        report_note("the counter groups do not fit one hardware pass together: each dispatch's passes are measured "
                    "as one configuration of " + std::to_string(sessions + 1) + " hardware passes, so replay passes "
                    "run the kernel up to " + std::to_string(sessions + 1) + " times (memory restored before each: "
                    "each further hardware pass reruns the passes up to the last whose group it measures) and each "
                    "counter comes from the run of the hardware pass that holds it");
    else if (sessions > 0)
        report_note("the Range Profiler asked for " + std::to_string(sessions) +
                    " more kernel run(s) within one replay pass before all its hardware passes were submitted "
                    "(cuptiRangeProfilerStop isAllPassSubmitted); memory is restored before each");
    if (!st.ok) report_counter_problem(st);
}

replay::PortStatus CudaPort::finish_pass(const replay::Dispatch& d, Launch& l, uint64_t pass, const Group* group,
                                         core::PassRecord&& rec) {
    ContextState& cs = *l.cs;
    if (l.lasting) {
        l.shared_start_ns = rec.start_ns;
        l.shared_end_ns = rec.end_ns;
        // A window of several hardware passes runs this launch again when it closes: a launch it cannot run
        // again would leave the further sessions' ranges out of line with the first's.
        if (cs.lasting.reruns() && !save_launch(l)) cs.lasting.spoil();
        cs.lasting.add_pass(std::move(rec), group);  // written when the window is decoded
        return PortStatus::success();
    }
    if (l.shared) {
        finish_shared(d, l, &rec);
        PhaseTimer timer(Phase::Record);
        if (group) pick_samples(*group, cs.shared_samples, &rec.counters);
        core::Core::instance().record_pass(std::move(rec));
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
            cs.window_groups.clear();
            for (const PendingPass& q : cs.pending) cs.window_groups.push_back(q.group);
            finish_hardware_passes(d, l, &cs.window_groups);
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
    core::Core::instance().record_pass(std::move(rec));
    return PortStatus::success();
}

}  // namespace gorocprof::cuda
