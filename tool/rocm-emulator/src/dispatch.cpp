// The launch path of the emulated SDK over the sim runtime: kernel symbols as CODE_OBJECT callbacks,
// and per launch the dispatch counting service (dispatch callback before the kernel runs, record
// callback after it) and, when a context subscribed to it, the KERNEL_REPLAY domain, run by the
// replay service over the sim's replay window.
#include "emulator.hpp"
#include "replay_service.hpp"
#include "sim_window.hpp"

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

namespace gorocprof::rocmemu {
namespace {

int g_gpus = 0;  // GPU agents, for kernel ids

uint64_t kernel_id_of(uint64_t serial, int agent) { return (serial - 1) * static_cast<uint64_t>(g_gpus) + agent + 1; }

rocprofiler_kernel_dispatch_info_t dispatch_info_of(const simLaunch* l, uint64_t dispatch_id) {
    rocprofiler_kernel_dispatch_info_t i{};
    i.size = offsetof(rocprofiler_kernel_dispatch_info_t, reserved_padding);
    const Agent* a = agent_by_sim_index(l->agent);
    i.agent_id = a != nullptr ? a->info.id : rocprofiler_agent_id_t{0};
    i.queue_id.handle = l->stream_id;
    i.kernel_id = kernel_id_of(l->kernel_serial, l->agent);
    i.dispatch_id = dispatch_id;
    i.private_segment_size = l->attrs.scratch_bytes;
    i.group_segment_size = l->group_segment_size;
    i.workgroup_size = {l->block.x, l->block.y, l->block.z};
    i.grid_size = {l->grid_size.x, l->grid_size.y, l->grid_size.z};
    return i;
}

// correlation: the launch's (tracing::launch_correlation), as the SDK gives a dispatch its API call's.
rocprofiler_dispatch_counting_service_data_t service_data(const rocprofiler_kernel_dispatch_info_t& info,
                                                          uint64_t correlation, const simExecResult* result) {
    rocprofiler_dispatch_counting_service_data_t d{};
    d.size = sizeof d;
    d.correlation_id.internal = correlation;
    d.dispatch_info = info;
    if (result != nullptr) {
        d.start_timestamp = static_cast<rocprofiler_timestamp_t>(result->start_ns);
        d.end_timestamp = static_cast<rocprofiler_timestamp_t>(result->end_ns);
    }
    return d;
}

// What each counting context chose for one execution.
struct Choice {
    int context = 0;
    rocprofiler_counter_config_id_t config{};
    rocprofiler_user_data_t user_data{};
};
constexpr int kMaxChoices = 8;
struct Choices {
    Choice c[kMaxChoices];
    int n = 0;
};

// Asks every started (and, inside a replay pass, effective) counting context for its config.
void choose(const rocprofiler_kernel_dispatch_info_t& info, uint64_t correlation, Choices* out) {
    State& s = state();
    out->n = 0;
    rocprofiler_dispatch_counting_service_data_t data = service_data(info, correlation, nullptr);
    for (int i = 0; i < kMaxContexts && out->n < kMaxChoices; ++i) {
        Context& c = s.contexts[i];
        if (!c.created || c.dispatch_cb == nullptr || !c.started.load()) continue;
        int effective = 0;
        if (gorocprof_context_is_effective(c.replay_ctx, &effective) != GOROCPROF_STATUS_SUCCESS || !effective) continue;
        Choice& ch = out->c[out->n];
        ch = Choice{i, {}, {}};
        c.dispatch_cb(data, &ch.config, &ch.user_data, c.dispatch_args);
        if (ch.config.handle != 0) ++out->n;
    }
}

thread_local std::vector<rocprofiler_counter_record_t> t_records;
thread_local std::vector<double> t_values;

// Samples a config's counters from one execution and hands the records to the context. Instances go
// out last to first: the SDK promises no order, so a tool must place them by their dimension positions.
void deliver(const simLaunch* l, const rocprofiler_kernel_dispatch_info_t& info, uint64_t correlation,
             const simExecResult& result, const Choice& ch) {
    State& s = state();
    Context& c = s.contexts[ch.context];
    const CounterConfig* cfg = config_by_handle(ch.config.handle);
    if (cfg == nullptr || c.record_cb == nullptr) return;
    std::vector<rocprofiler_counter_record_t>& recs = t_records;
    recs.clear();
    for (const AgentCounter* k : cfg->counters) {
        t_values.resize(k->instances);
        size_t n = 0;
        if (simToolSampleCounter(l, &result, k->def->name.c_str(), k->def->block.c_str(), k->def->event, t_values.data(),
                                 t_values.size(), &n) != simSuccess) {
            say("simToolSampleCounter(" + k->def->name + "): " + simGetLastErrorMessage() + "; its records are left out");
            continue;
        }
        for (size_t i = n; i-- > 0;)
            recs.push_back({encode_instance(*k, i), t_values[i], info.dispatch_id, ch.user_data, info.agent_id});
    }
    c.record_cb(service_data(info, correlation, &result), recs.data(), recs.size(), ch.user_data, c.record_args);
}

// The SDK hands a replayed pass's counter records to the tool from its completion handler's thread,
// which it drains before PASS EXIT (queue_hooks.cpp); this thread plays that handler, so that a tool
// gets the records where the SDK gives them. Started on first use and never stopped: records may be
// due while exit() runs.
class CompletionThread {
public:
    static CompletionThread& instance() {
        static CompletionThread* t = new CompletionThread;
        return *t;
    }

    // Runs job(arg) there and returns once it is done; inline when called there (a launch made by a
    // record callback).
    void run(void (*job)(void*), void* arg) {
        if (std::this_thread::get_id() == id_) return job(arg);
        std::lock_guard<std::mutex> one(submit_mu_);
        std::unique_lock<std::mutex> lock(mu_);
        job_ = job;
        arg_ = arg;
        done_ = false;
        cv_.notify_all();
        cv_.wait(lock, [this] { return done_; });
    }

private:
    CompletionThread() {
        std::thread worker([this] { loop(); });
        id_ = worker.get_id();
        worker.detach();
    }

    void loop() {
        std::unique_lock<std::mutex> lock(mu_);
        for (;;) {
            cv_.wait(lock, [this] { return job_ != nullptr; });
            void (*job)(void*) = job_;
            void* arg = arg_;
            lock.unlock();
            job(arg);
            lock.lock();
            job_ = nullptr;
            done_ = true;
            cv_.notify_all();
        }
    }

    std::mutex submit_mu_;  // one job at a time
    std::mutex mu_;
    std::condition_variable cv_;
    void (*job_)(void*) = nullptr;
    void* arg_ = nullptr;
    bool done_ = false;
    std::thread::id id_;
};

// The port the replay service drives for one launch: each submit is one execution with its own
// dispatch counting callbacks and records, as every pass is in the SDK.
class EmuPort : public sim::SimWindowPort {
public:
    EmuPort(const simLaunch* l, const rocprofiler_kernel_dispatch_info_t& info, uint64_t correlation)
        : SimWindowPort(l), info_(info), correlation_(correlation) {}

    replay::PortStatus submit(const replay::Dispatch&, uint64_t) override {
        Choices choices;
        choose(info_, correlation_, &choices);
        simExecResult result;
        replay::PortStatus st = execute(&result);
        if (!st.ok) return st;
        tracing::dispatch_done(info_, correlation_, launch_->thread_id, result);
        if (choices.n == 0) return replay::PortStatus::success();
        Delivery job{this, &result, &choices};
        CompletionThread::instance().run(deliver_all, &job);
        return replay::PortStatus::success();
    }

protected:
    void report(const std::string& message) override { say("error: " + message); }

private:
    struct Delivery {
        const EmuPort* port;
        const simExecResult* result;
        const Choices* choices;
    };
    static void deliver_all(void* arg) {
        const auto* j = static_cast<const Delivery*>(arg);
        for (int i = 0; i < j->choices->n; ++i) deliver(j->port->launch_, j->port->info_, j->port->correlation_, *j->result, j->choices->c[i]);
    }

    rocprofiler_kernel_dispatch_info_t info_;
    uint64_t correlation_;
};

// The tool's side of the replay loop on this thread: the SDK payload the tool sees and the callbacks
// it installed. Only the outermost dispatch of a thread runs CONFIG, so one frame per thread is enough.
struct ReplayFrame {
    rocprofiler_callback_tracing_kernel_replay_data_t payload{};
    rocprofiler_kernel_replay_pass_count_cb_t pass_count = nullptr;
    rocprofiler_kernel_replay_continue_cb_t keep_going = nullptr;
    gorocprof_kernel_replay_context_cb_t local_start = nullptr;
    gorocprof_kernel_replay_context_cb_t local_stop = nullptr;
    bool loop = false;  // replay_pass_count asked for a loop (N > 1, or 0 with replay_continue)
    // CONFIG EXIT of a loop, held back until the loop ends, where the SDK delivers it.
    bool exit_pending = false;
    rocprofiler_callback_tracing_record_t exit_record{};
    rocprofiler_user_data_t exit_user_data{};
    rocprofiler_callback_tracing_cb_t exit_callback = nullptr;
    void* exit_args = nullptr;
};
thread_local ReplayFrame t_frame;
thread_local rocprofiler_kernel_dispatch_info_t t_launch_info;  // of the launch being replayed here

rocprofiler_user_data_t to_sdk(gorocprof_user_data_t u) {
    rocprofiler_user_data_t r;
    r.value = u.value;
    return r;
}

uint64_t pass_count_trampoline(gorocprof_kernel_dispatch_info_t, gorocprof_user_data_t user_data) {
    ReplayFrame& f = t_frame;
    uint64_t n = f.pass_count != nullptr ? f.pass_count(f.payload.dispatch_info, to_sdk(user_data)) : 1;
    f.loop = n > 1 || (n == 0 && f.keep_going != nullptr);
    return n;
}

// The CONFIG EXIT held back for a loop, after its last pass (the SDK's order: CONFIG ENTER, the
// passes, CONFIG EXIT, then the application's completion).
void deliver_config_exit() {
    ReplayFrame& f = t_frame;
    if (!f.exit_pending) return;
    f.exit_pending = false;
    f.payload.current_pass = 0;
    f.payload.total_passes = 0;
    f.payload.replay_start_context = nullptr;
    f.payload.replay_stop_context = nullptr;
    f.payload.replay_pass_count = f.pass_count;
    f.payload.replay_continue = f.keep_going;
    f.exit_record.payload = &f.payload;
    f.exit_callback(f.exit_record, &f.exit_user_data, f.exit_args);
}

int continue_trampoline(gorocprof_kernel_dispatch_info_t, uint64_t completed_pass, gorocprof_user_data_t user_data) {
    ReplayFrame& f = t_frame;
    return f.keep_going != nullptr ? f.keep_going(f.payload.dispatch_info, completed_pass, f.payload.total_passes,
                                                  to_sdk(user_data))
                                   : 0;
}

rocprofiler_status_t local_context(rocprofiler_context_id_t id, bool start) {
    Context* c = context_by_handle(id.handle);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    ReplayFrame& f = t_frame;
    gorocprof_kernel_replay_context_cb_t fn = start ? f.local_start : f.local_stop;
    if (fn == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR;
    switch (fn(c->replay_ctx)) {
        case GOROCPROF_STATUS_SUCCESS: return ROCPROFILER_STATUS_SUCCESS;
        case GOROCPROF_STATUS_ERROR_CONTEXT_NOT_STARTED: return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED;
        case GOROCPROF_STATUS_ERROR_CONTEXT_ERROR: return ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR;
        default: return ROCPROFILER_STATUS_ERROR;
    }
}
rocprofiler_status_t local_start(rocprofiler_context_id_t id) { return local_context(id, true); }
rocprofiler_status_t local_stop(rocprofiler_context_id_t id) { return local_context(id, false); }

void on_kernel(const simKernelInfo* k, void*) {
    for (int a = 0; a < g_gpus; ++a) {
        rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t p{};
        p.size = sizeof p;
        p.kernel_id = kernel_id_of(k->serial, a);
        p.code_object_id = static_cast<uint64_t>(a) + 1;  // one code object per agent
        p.kernel_name = k->mangled_name;
        p.kernel_object = p.kernel_id;
        p.kernarg_segment_size = k->attrs.kernarg_size;
        p.kernarg_segment_alignment = 8;
        p.group_segment_size = k->attrs.lds_bytes;
        p.private_segment_size = k->attrs.scratch_bytes;
        p.sgpr_count = k->attrs.sgpr;
        p.arch_vgpr_count = k->attrs.vgpr;
        p.accum_vgpr_count = k->attrs.accum_vgpr;
        rocprofiler_correlation_id_t none{};
        trace(ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT, ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER,
              ROCPROFILER_CALLBACK_PHASE_LOAD, &p, nullptr, none);
    }
}

struct Pending {
    rocprofiler_kernel_dispatch_info_t info;
    uint64_t correlation;
    Choices choices;
};

void on_executed(const simLaunch* l, const simExecResult* result, void* user) {
    auto* p = static_cast<Pending*>(user);
    tracing::dispatch_done(p->info, p->correlation, l->thread_id, *result);
    for (int i = 0; i < p->choices.n; ++i) deliver(l, p->info, p->correlation, *result, p->choices.c[i]);
    delete p;
}

void on_launch(const simLaunch* l, void*) {
    replay::ReplayService& service = replay::ReplayService::instance();
    rocprofiler_kernel_dispatch_info_t info = dispatch_info_of(l, service.reserve_dispatch_id());
    uint64_t correlation = tracing::launch_correlation(l->api_value, info.dispatch_id);
    if (service.enabled()) {
        EmuPort port(l, info, correlation);
        replay::Dispatch d;
        d.info.size = sizeof d.info;
        d.info.agent_id.handle = info.agent_id.handle;
        d.info.queue_id.handle = info.queue_id.handle;
        d.info.kernel_id = info.kernel_id;
        d.info.dispatch_id = info.dispatch_id;
        d.info.private_segment_size = info.private_segment_size;
        d.info.group_segment_size = info.group_segment_size;
        d.info.workgroup_size = {info.workgroup_size.x, info.workgroup_size.y, info.workgroup_size.z};
        d.info.grid_size = {info.grid_size.x, info.grid_size.y, info.grid_size.z};
        d.correlation.internal = correlation;
        d.backend_dispatch = const_cast<simLaunch*>(l);
        rocprofiler_kernel_dispatch_info_t outer = t_launch_info;
        t_launch_info = info;
        {
            tracing::Internal sdk_work;  // the passes, snapshots and restores are the SDK's own
            service.execute(port, d);
        }
        if (outer.dispatch_id == 0) deliver_config_exit();  // a nested launch never ran CONFIG
        t_launch_info = outer;
        return;
    }
    // No replay: the dispatch callbacks run before the kernel on this thread, the records come from
    // the stream's worker after it ran.
    auto* p = new Pending{info, correlation, {}};
    choose(info, correlation, &p->choices);
    if (p->choices.n == 0 && !tracing::dispatches_traced()) {
        delete p;
        if (simToolEnqueue(l) != simSuccess) say(std::string("simToolEnqueue: ") + simGetLastErrorMessage());
        return;
    }
    if (simToolEnqueueWithCallback(l, on_executed, p) != simSuccess) {
        say(std::string("simToolEnqueueWithCallback: ") + simGetLastErrorMessage());
        delete p;
    }
}

}  // namespace

void replay_domain_callback(gorocprof_callback_tracing_record_t record, gorocprof_user_data_t* user_data, void* args) {
    auto handle = reinterpret_cast<uint64_t>(args);
    Context* c = context_by_handle(handle);
    auto* gp = static_cast<gorocprof_callback_tracing_kernel_replay_data_t*>(record.payload);
    if (c == nullptr || gp == nullptr) return;
    const TracingService* t = nullptr;
    for (const TracingService& s : c->tracing)
        if (s.kind == state().options.replay_kind) t = &s;
    if (t == nullptr) return;
    ReplayFrame& f = t_frame;
    if (record.operation == GOROCPROF_KERNEL_REPLAY_CONFIG && record.phase == GOROCPROF_CALLBACK_PHASE_ENTER) {
        f = ReplayFrame{};
        f.payload.size = sizeof f.payload;
        f.payload.dispatch_info = t_launch_info;
    }
    // CONFIG: the pass fields are zero; PASS: the config callbacks are, and the local controls are set.
    bool pass = record.operation == GOROCPROF_KERNEL_REPLAY_PASS;
    f.payload.current_pass = pass ? gp->current_pass : 0;
    f.payload.total_passes = pass ? gp->total_passes : 0;
    if (pass) {
        f.payload.replay_pass_count = nullptr;
        f.payload.replay_continue = nullptr;
        f.local_start = gp->replay_start_context;
        f.local_stop = gp->replay_stop_context;
        f.payload.replay_start_context = local_start;
        f.payload.replay_stop_context = local_stop;
    } else {
        f.payload.replay_start_context = nullptr;
        f.payload.replay_stop_context = nullptr;
    }
    rocprofiler_callback_tracing_record_t r{};
    r.context_id.handle = handle;
    r.thread_id = record.thread_id;
    r.correlation_id.internal = record.correlation_id.internal;
    r.correlation_id.external.value = record.correlation_id.external.value;
    r.correlation_id.ancestor = record.correlation_id.ancestor;
    r.kind = static_cast<rocprofiler_callback_tracing_kind_t>(state().options.replay_kind);
    r.operation = static_cast<rocprofiler_tracing_operation_t>(record.operation);
    r.phase = record.phase == GOROCPROF_CALLBACK_PHASE_ENTER ? ROCPROFILER_CALLBACK_PHASE_ENTER : ROCPROFILER_CALLBACK_PHASE_EXIT;
    r.payload = &f.payload;
    static_assert(sizeof(rocprofiler_user_data_t) == sizeof(gorocprof_user_data_t), "one user_data layout");
    if (!pass && record.phase != GOROCPROF_CALLBACK_PHASE_ENTER && f.loop) {
        // The replay service ends CONFIG before the loop; the SDK after it (replay_callbacks.cpp,
        // queue_hooks.cpp run_replay_window): hold it back until the loop is done.
        f.exit_pending = true;
        f.exit_record = r;
        f.exit_user_data.value = user_data != nullptr ? user_data->value : 0;
        f.exit_callback = t->callback;
        f.exit_args = t->args;
        return;
    }
    t->callback(r, reinterpret_cast<rocprofiler_user_data_t*>(user_data), t->args);
    if (!pass && record.phase == GOROCPROF_CALLBACK_PHASE_ENTER) {
        f.pass_count = f.payload.replay_pass_count;
        f.keep_going = f.payload.replay_continue;
        gp->replay_pass_count = f.pass_count != nullptr ? pass_count_trampoline : nullptr;
        gp->replay_continue = f.keep_going != nullptr ? continue_trampoline : nullptr;
    }
    if (pass) {
        f.local_start = nullptr;
        f.local_stop = nullptr;
    }
}

bool install_hooks(std::string* error) {
    int count = 0;
    if (simToolAgentCount(&count) != simSuccess) {
        *error = std::string("simToolAgentCount: ") + simGetLastErrorMessage();
        return false;
    }
    g_gpus = count;
    replay::ReplayService::instance().set_diagnostic_sink([](bool fatal, uint64_t, const std::string& message) {
        say((fatal ? "fatal: " : "warning: ") + message);
    });
    if (simToolSetKernelCallback(on_kernel, nullptr) != simSuccess || simToolSetLaunchHook(on_launch, nullptr) != simSuccess) {
        *error = std::string("installing the sim runtime's hooks: ") + simGetLastErrorMessage();
        simToolSetLaunchHook(nullptr, nullptr);
        return false;
    }
    return tracing::install(error);
}

}  // namespace gorocprof::rocmemu
