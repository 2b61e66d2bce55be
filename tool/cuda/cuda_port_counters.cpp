// The port's counter side (README.md, "Counters" and "Counter windows"): arming a pass or a window, the
// windows of a dispatch and those across dispatches (lasting_window.hpp), the cache flush before a pass,
// the further hardware passes of a configuration, and what a pass leaves once its kernel ran.
#include "cuda_port.hpp"

#include "options.hpp"
#include "phase_stats.hpp"

#include <string>
#include <utility>
#include <vector>

namespace gorocprof::cuda {

bool CudaPort::may_join_lasting(Launch& l, bool watched, bool replayed) {
    ContextState& cs = *l.cs;
    JoinFacts f;
    f.windows = options().windows && options().window_dispatches > 0 && !windows_off_.load(std::memory_order_relaxed);
    f.counters = counters_usable() && cs.counters;
    f.steady = f.windows && f.counters && cs.counters->steady();
    f.replayed = replayed;
    f.app_launch = l.app_launch_pending;
    f.unwatched = !watched;
    f.capacity = options().window_dispatches;
    f.passes = replayed ? core::Core::instance().passes_for_agent(l.agent_index).size() : 1;
    if (replayed && f.steady && watched && f.app_launch) {  // the tracker is walked only for a candidate
        f.replayed_may = options().lasting_replayed;
        f.timed = cs.counters->timed();
        if (f.replayed_may && f.timed) {
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

bool CudaPort::join_lasting(Launch& l, const Group* group) {
    ContextState& cs = *l.cs;
    l.lasting = false;
    if (!l.lasting_planned || windows_off_.load(std::memory_order_relaxed)) return false;
    const size_t passes = l.snapshot_planned ? core::Core::instance().passes_for_agent(l.agent_index).size() : 1;
    if (cs.lasting.open() && cs.lasting.room(passes) && cs.counters->armed()) {
        l.lasting = true;  // the next ranges of the open window: nothing to arm
        return true;
    }
    close_lasting(cs);
    if (windows_off_.load(std::memory_order_relaxed)) return false;  // that window decoded wrong
    PhaseTimer timer(Phase::Arm);
    cs.lasting.set_capacity(options().window_dispatches);
    std::string note;
    const PortStatus st = cs.counters->arm(group, &note, cs.lasting.ranges());
    if (!note.empty()) report_note(note);
    report_availability_problem(*cs.counters);
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
                rs = restore(d, *l.active_snapshot);
                if (rs.ok) flush_caches(l);
                if (rs.ok) rs = relaunch_measured(l);
                if (rs.ok) rs = cu(cuCtxSynchronize(), "cuCtxSynchronize");
            }
            return rs;
        },
        &sessions);
    if (sessions > 0 && runs > 1)
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
