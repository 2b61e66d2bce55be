// The tool's callbacks. Per logical dispatch, on the dispatching thread:
//   kernel replay: CONFIG ENTER applies the filters (once) and installs replay_pass_count; each PASS
//   ENTER publishes current_pass; the counting service's dispatch callback hands back that pass's
//   config; its record callback formats the pass (the SDK calls it from its completion thread, which
//   it drains before PASS EXIT: the pass then waits for PASS EXIT to reach core on the dispatching
//   thread); the last PASS EXIT writes the dispatch (core).
//   otherwise: the dispatch callback applies the filters (once) and hands back the run's config; the
//   record callback (on whatever thread the SDK uses) writes the dispatch.
#include "tool.hpp"

#include "replay_service.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace gorocprof::rocm {
namespace {

constexpr uint64_t kNoPass = UINT64_MAX;

struct ThreadState {
    // The filter's verdict on the logical dispatch in flight on this thread, so that it is asked once.
    uint64_t verdict_for = 0;
    bool selected = false;
    // Published by PASS ENTER, cleared by PASS EXIT.
    uint64_t pass = kNoPass;
    uint64_t total_passes = 0;
    // The replayed dispatch whose passes this thread collects (0: none), and what CONFIG said of it.
    // Written by this thread only, read by the record callback on another (hand_to_replaying_thread).
    std::atomic<uint64_t> open_dispatch{0};
    uint64_t correlation = 0;
    uint64_t asked_passes_for = 0;  // dispatch for which replay_pass_count returned > 1
    bool pass_recorded = false;
    int64_t pass_start_ns = 0;
    uint64_t tid = 0;
    core::PassRecord rec;  // reused: capacity stays
    // A pass formatted by the record callback on another thread, for PASS EXIT here (under g_foreign_mu).
    core::PassRecord foreign;
    bool foreign_ready = false;
};

thread_local ThreadState t_state;

uint64_t thread_id() {
    ThreadState& t = t_state;
    if (t.tid == 0) t.tid = static_cast<uint64_t>(::syscall(SYS_gettid));
    return t.tid;
}

// The replaying threads by id, so that a pass's records arriving on the SDK's completion thread find
// the thread whose dispatch they belong to (the dispatch callback packs its id into user_data). An
// entry is made once per thread; one of an exited thread is replaced when its id comes back.
std::mutex g_foreign_mu;
std::unordered_map<uint64_t, ThreadState*> g_replaying;

void register_replaying() {
    ThreadState& t = t_state;
    uint64_t id = thread_id();
    std::lock_guard<std::mutex> lock(g_foreign_mu);
    ThreadState*& slot = g_replaying[id];
    slot = &t;
}

int64_t sdk_now_ns(const Tool& tl) {
    rocprofiler_timestamp_t ts = 0;
    rocprofiler_get_timestamp(&ts);
    return static_cast<int64_t>(ts) + tl.clock_offset_ns;
}

// core's kernel for the SDK's kernel id, registered with core at its first dispatch (the symbol's
// agent is the dispatch's). Returns false for a kernel the code-object callbacks never named.
bool kernel_of(Tool& tl, const ProfiledAgent& a, uint64_t sdk_kernel, core::KernelRef* out) {
    std::lock_guard<std::mutex> lock(tl.kernels_mu);
    auto known = tl.kernels.find(sdk_kernel);
    if (known != tl.kernels.end()) {
        *out = known->second;
        return true;
    }
    auto sym = tl.symbols.find(sdk_kernel);
    if (sym == tl.symbols.end()) return false;
    core::KernelDesc d = sym->second;
    d.agent_id = a.core_id;
    *out = tl.kernels.emplace(sdk_kernel, core::Core::instance().register_kernel(d)).first->second;
    return true;
}

// Whether the counting service collects this dispatch: its agent has passes. The filters of the others
// are asked where their kernel trace comes from (traced_dispatch), once.
bool counted(const Tool& tl, const rocprofiler_kernel_dispatch_info_t& info) {
    const ProfiledAgent* a = tl.agent(info.agent_id);
    return a != nullptr && !a->passes.empty();
}

// The filter verdict for this logical dispatch: asked once, on its first callback on this thread.
bool selected(Tool& tl, const rocprofiler_kernel_dispatch_info_t& info) {
    ThreadState& t = t_state;
    if (t.verdict_for == info.dispatch_id) return t.selected;
    t.verdict_for = info.dispatch_id;
    t.selected = false;
    const ProfiledAgent* a = tl.agent(info.agent_id);
    core::KernelRef k;
    if (a != nullptr && kernel_of(tl, *a, info.kernel_id, &k)) t.selected = core::Core::instance().select(k);
    return t.selected;
}

core::DispatchFacts facts_of(Tool& tl, const ProfiledAgent& a, const rocprofiler_kernel_dispatch_info_t& info,
                             uint64_t correlation, uint64_t tid) {
    core::DispatchFacts f;
    f.info.size = sizeof f.info;
    f.info.agent_id.handle = a.core_id;
    f.info.queue_id.handle = info.queue_id.handle;
    core::KernelRef k;
    if (kernel_of(tl, a, info.kernel_id, &k)) f.info.kernel_id = k.kernel_id;
    f.info.dispatch_id = info.dispatch_id;
    f.info.private_segment_size = info.private_segment_size;
    f.info.group_segment_size = info.group_segment_size;
    f.info.workgroup_size = {info.workgroup_size.x, info.workgroup_size.y, info.workgroup_size.z};
    f.info.grid_size = {info.grid_size.x, info.grid_size.y, info.grid_size.z};
    f.correlation_id = correlation;
    f.thread_id = tid;
    f.agent_index = a.sdk.index;
    return f;
}

// The pass the current run of a dispatch collects, kNoPass when it collects nothing.
uint64_t pass_now(const Tool& tl) {
    switch (tl.collect) {
        case Collect::KernelReplay: return t_state.pass != kNoPass ? t_state.pass : 0;
        case Collect::Application: return static_cast<uint64_t>(core::Core::instance().config().application_pass);
        case Collect::Rotation: return core::Core::instance().selected_rotation_pass();  // kNoPass: none
        case Collect::OnePass:
        case Collect::Single: return 0;
    }
    return kNoPass;
}

// user_data of a dispatch: the dispatching thread and 1 + the replay pass (0: not a replay pass;
// kDeclinedRun: the single run of a dispatch replay_pass_count asked passes of, which the SDK ran
// once). It travels with the records, which the SDK may hand over on another thread.
constexpr uint64_t kDeclinedRun = 0xffffffffu;
uint64_t pack(uint64_t tid, uint64_t replay_pass, bool declined = false) {
    return (tid << 32) | (declined ? kDeclinedRun : replay_pass == kNoPass ? 0 : replay_pass + 1);
}
uint64_t unpack_tid(uint64_t v) { return v >> 32; }
bool unpack_declined(uint64_t v) { return (v & 0xffffffffu) == kDeclinedRun; }
uint64_t unpack_pass(uint64_t v) {
    uint64_t low = v & 0xffffffffu;
    return low == 0 || low == kDeclinedRun ? kNoPass : low - 1;
}

// Places each record's value by its dimension positions (the SDK promises no order).
void fill_counters(const PassConfig& pc, const rocprofiler_counter_record_t* records, size_t count, core::PassRecord& rec) {
    rec.counters.resize(pc.counters.size());
    for (size_t i = 0; i < pc.counters.size(); ++i) {
        rec.counters[i].counter = &(*pc.plan)[i];
        rec.counters[i].values.assign(pc.counters[i]->instances, std::numeric_limits<double>::quiet_NaN());
    }
    for (size_t r = 0; r < count; ++r) {
        rocprofiler_counter_id_t id{};
        if (rocprofiler_query_record_counter_id(records[r].id, &id) != ROCPROFILER_STATUS_SUCCESS) continue;
        for (size_t i = 0; i < pc.counters.size(); ++i) {
            const Counter& c = *pc.counters[i];
            if (c.id.handle != id.handle) continue;
            size_t linear = 0;
            bool ok = true;
            for (const Dimension& d : c.dims) {
                size_t pos = 0;
                ok = ok && rocprofiler_query_record_dimension_position(records[r].id, d.id, &pos) == ROCPROFILER_STATUS_SUCCESS &&
                     pos < d.size;
                linear = linear * d.size + pos;
            }
            if (ok && linear < rec.counters[i].values.size()) rec.counters[i].values[linear] = records[r].counter_value;
            break;
        }
    }
}

#if GOROCPROF_ROCM_KERNEL_REPLAY
uint64_t pass_count(rocprofiler_kernel_dispatch_info_t info, rocprofiler_user_data_t) {
    Tool* tl = tool();
    if (tl == nullptr || !counted(*tl, info) || !selected(*tl, info)) return 1;  // filtered out: never replayed
    const ProfiledAgent* a = tl->agent(info.agent_id);
    uint64_t n = a != nullptr ? a->passes.size() : 0;
    if (n > 1) t_state.asked_passes_for = info.dispatch_id;
    return n > 1 ? n : 1;
}

void pass_enter(Tool& tl, const rocprofiler_callback_tracing_kernel_replay_data_t& p) {
    ThreadState& t = t_state;
    if (p.current_pass == 0) register_replaying();
    t.pass = p.current_pass;
    t.total_passes = p.total_passes;
    t.pass_recorded = false;
    t.pass_start_ns = sdk_now_ns(tl);
    if (p.current_pass != 0 || t.open_dispatch == p.dispatch_info.dispatch_id) return;
    close_open_dispatch();
    const ProfiledAgent* a = tl.agent(p.dispatch_info.agent_id);
    if (a == nullptr) return;
    core::Core::instance().begin_dispatch(facts_of(tl, *a, p.dispatch_info, t.correlation, 0));
    t.open_dispatch = p.dispatch_info.dispatch_id;
}

void pass_exit(Tool& tl, const rocprofiler_callback_tracing_kernel_replay_data_t& p) {
    ThreadState& t = t_state;
    bool foreign = false;
    {
        std::lock_guard<std::mutex> lock(g_foreign_mu);
        std::swap(foreign, t.foreign_ready);
    }
    if (foreign && t.open_dispatch == p.dispatch_info.dispatch_id) {
        core::Core::instance().record_pass(t.foreign);
        t.pass_recorded = true;
    }
    if (t.open_dispatch == p.dispatch_info.dispatch_id && !t.pass_recorded) {
        // A pass without counters (an empty group) has no record callback: its line carries the
        // pass's window instead of kernel timestamps.
        core::PassRecord& rec = t.rec;
        rec.pass = p.current_pass;
        rec.passes = p.total_passes;
        rec.start_ns = t.pass_start_ns;
        rec.end_ns = sdk_now_ns(tl);
        rec.counters.clear();
        core::Core::instance().record_pass(rec);
    }
    t.pass = kNoPass;
    if (p.current_pass + 1 == p.total_passes) close_open_dispatch();
}
#endif

}  // namespace

void close_open_dispatch() {
    ThreadState& t = t_state;
    if (t.open_dispatch == 0) return;
    t.open_dispatch = 0;
    core::Core::instance().end_dispatch();
}

void code_object_callback(rocprofiler_callback_tracing_record_t record, rocprofiler_user_data_t*, void*) {
    Tool* tl = tool();
    if (tl == nullptr || record.kind != ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT ||
        record.operation != ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER ||
        record.phase != ROCPROFILER_CALLBACK_PHASE_LOAD || record.payload == nullptr)
        return;
    const auto* p = static_cast<const rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t*>(record.payload);
    try {
        core::KernelDesc d;
        d.mangled_name = p->kernel_name != nullptr ? p->kernel_name : "";
        d.kernarg_size = p->kernarg_segment_size;
        d.group_segment_size = p->group_segment_size;
        d.private_segment_size = p->private_segment_size;
        d.sgpr = p->sgpr_count;
        d.vgpr = p->arch_vgpr_count;
        d.accum_vgpr = p->accum_vgpr_count;
        std::lock_guard<std::mutex> lock(tl->kernels_mu);
        tl->symbols.emplace(p->kernel_id, std::move(d));
    } catch (const std::exception& e) {
        core::Core::instance().fatal(std::string("code object callback: ") + e.what());
    }
}

void kernel_replay_callback(rocprofiler_callback_tracing_record_t record, rocprofiler_user_data_t*, void*) {
#if GOROCPROF_ROCM_KERNEL_REPLAY
    Tool* tl = tool();
    if (tl == nullptr || record.payload == nullptr) return;
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(record.payload);
    try {
        if (record.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG) {
            if (record.phase != ROCPROFILER_CALLBACK_PHASE_ENTER) return;
            if (counted(*tl, p->dispatch_info)) selected(*tl, p->dispatch_info);  // the filters, once, before the replay decision
            t_state.correlation = record.correlation_id.internal;
            p->replay_pass_count = pass_count;
        } else if (record.operation == ROCPROFILER_KERNEL_REPLAY_PASS) {
            if (record.phase == ROCPROFILER_CALLBACK_PHASE_ENTER)
                pass_enter(*tl, *p);
            else
                pass_exit(*tl, *p);
        }
    } catch (const std::exception& e) {
        core::Core::instance().fatal(std::string("kernel replay callback: ") + e.what());
    }
#else
    (void)record;
#endif
}

void dispatch_callback(rocprofiler_dispatch_counting_service_data_t data, rocprofiler_counter_config_id_t* config,
                       rocprofiler_user_data_t* user_data, void*) {
    Tool* tl = tool();
    if (tl == nullptr || config == nullptr) return;
    try {
        const rocprofiler_kernel_dispatch_info_t& info = data.dispatch_info;
        if (!counted(*tl, info) || !selected(*tl, info)) return;
        const ProfiledAgent* a = tl->agent(info.agent_id);
        uint64_t p = pass_now(*tl);
        if (a == nullptr || p >= a->passes.size()) return;
        *config = a->passes[p].config;
        // A rotated dispatch's pass travels with it: the record callback may run on another thread.
        uint64_t carried = tl->collect == Collect::Rotation ? p : t_state.pass;
        // Outside a pass, a dispatch whose replay was asked for runs once: the SDK declined it.
        bool declined = t_state.pass == kNoPass && t_state.asked_passes_for == info.dispatch_id;
        if (declined) t_state.asked_passes_for = 0;
        if (user_data != nullptr) user_data->value = pack(thread_id(), carried, declined);
        if (t_state.pass == kNoPass) t_state.correlation = data.correlation_id.internal;
    } catch (const std::exception& e) {
        core::Core::instance().fatal(std::string("dispatch callback: ") + e.what());
    }
}

namespace {

// A replay pass's records on a thread other than the one replaying it: formatted into that thread's
// `foreign` record, which its PASS EXIT hands to core. False when no such thread has the dispatch
// open (the records are then written as a dispatch of their own).
bool hand_to_replaying_thread(const Tool& tl, const PassConfig& pc, const rocprofiler_dispatch_counting_service_data_t& data,
                              const rocprofiler_counter_record_t* records, size_t count, rocprofiler_user_data_t user_data) {
    std::lock_guard<std::mutex> lock(g_foreign_mu);
    auto it = g_replaying.find(unpack_tid(user_data.value));
    if (it == g_replaying.end()) return false;
    ThreadState& t = *it->second;
    if (t.open_dispatch != data.dispatch_info.dispatch_id) return false;
    core::PassRecord& rec = t.foreign;
    rec.start_ns = static_cast<int64_t>(data.start_timestamp) + tl.clock_offset_ns;
    rec.end_ns = static_cast<int64_t>(data.end_timestamp) + tl.clock_offset_ns;
    fill_counters(pc, records, count, rec);
    rec.pass = unpack_pass(user_data.value);
    rec.passes = t.total_passes;
    t.foreign_ready = true;
    return true;
}

}  // namespace

void record_callback(rocprofiler_dispatch_counting_service_data_t data, rocprofiler_counter_record_t* records, size_t count,
                     rocprofiler_user_data_t user_data, void*) {
    Tool* tl = tool();
    if (tl == nullptr) return;
    try {
        const rocprofiler_kernel_dispatch_info_t& info = data.dispatch_info;
        const ProfiledAgent* a = tl->agent(info.agent_id);
        uint64_t replay_pass = unpack_pass(user_data.value);
        uint64_t p = replay_pass != kNoPass ? replay_pass : pass_now(*tl);
        if (a == nullptr || p >= a->passes.size()) return;
        if (replay_pass != kNoPass && unpack_tid(user_data.value) != thread_id() &&
            hand_to_replaying_thread(*tl, a->passes[p], data, records, count, user_data))
            return;
        ThreadState& t = t_state;
        core::PassRecord& rec = t.rec;
        rec.start_ns = static_cast<int64_t>(data.start_timestamp) + tl->clock_offset_ns;
        rec.end_ns = static_cast<int64_t>(data.end_timestamp) + tl->clock_offset_ns;
        fill_counters(a->passes[p], records, count, rec);
        core::Core& core = core::Core::instance();
        if (replay_pass != kNoPass && t.open_dispatch == info.dispatch_id) {
            rec.pass = replay_pass;
            rec.passes = t.total_passes;
            core.record_pass(rec);
            t.pass_recorded = true;
            return;
        }
        // A run that is no replay pass: its own write.
        rec.pass = core::kNotReplayed;
        rec.passes = 1;
        if (tl->collect == Collect::OnePass) {
            rec.pass = 0;  // pass 0 of the plan's passes: the front end reports the others missing
            rec.passes = a->passes.size();
        }
        core::DispatchFacts facts = facts_of(*tl, *a, info, data.correlation_id.internal, unpack_tid(user_data.value));
        if (tl->collect == Collect::Rotation) facts.rotation_pass = p;
        core.begin_dispatch(facts);
        core.record_pass(rec);
        if (!unpack_declined(user_data.value)) return core.end_dispatch();
        // replay_pass_count asked for passes and none came: the SDK declined; said in the same write.
        replay::Outcome declined;
        declined.dispatch_id = info.dispatch_id;
        declined.passes_run = 1;
        declined.declined = true;
        declined.decline_reason =
            "the SDK ran the dispatch once instead of replaying it " + std::to_string(a->passes.size()) + " times";
        core.end_dispatch(declined);
    } catch (const std::exception& e) {
        core::Core::instance().fatal(std::string("record callback: ") + e.what());
    }
}

void traced_dispatch(const rocprofiler_buffer_tracing_kernel_dispatch_record_t& r) {
    Tool* tl = tool();
    if (tl == nullptr) return;
    try {
        const rocprofiler_kernel_dispatch_info_t& info = r.dispatch_info;
        const ProfiledAgent* a = tl->agent(info.agent_id);
        // An agent with passes has its dispatches from the counting service.
        if (a == nullptr || !a->passes.empty() || !selected(*tl, info)) return;
        core::PassRecord& rec = t_state.rec;
        rec.pass = core::kNotReplayed;
        rec.passes = 1;
        rec.start_ns = static_cast<int64_t>(r.start_timestamp) + tl->clock_offset_ns;
        rec.end_ns = static_cast<int64_t>(r.end_timestamp) + tl->clock_offset_ns;
        rec.counters.clear();
        core::Core& core = core::Core::instance();
        core.begin_dispatch(facts_of(*tl, *a, info, r.correlation_id.internal, r.thread_id));
        core.record_pass(rec);
        core.end_dispatch();
    } catch (const std::exception& e) {
        core::Core::instance().fatal(std::string("kernel dispatch record: ") + e.what());
    }
}

}  // namespace gorocprof::rocm
