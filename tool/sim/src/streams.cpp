// Streams: one FIFO and one worker thread each. Kernel launches, async copies and sets are items of
// the FIFO. With a tool launch hook, a launch enters the FIFO as a placeholder that holds the stream
// until the tool completes it (it ran the kernel itself) or enqueues it (the worker runs it); this is
// what keeps the application's view of completion in stream order while a tool replays a dispatch.
#include "sim_internal.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

namespace gorocprof::sim {
namespace {

struct Item {
    enum class Kind { Kernel, Copy, Set } kind = Kind::Kernel;
    std::shared_ptr<LaunchRec> launch;
    void* dst = nullptr;
    const void* src = nullptr;
    int value = 0;
    size_t size = 0;
    // Copies: what the copy callback reports about the call that issued it.
    simStream_t handle = nullptr;
    uint64_t api_value = 0;
    uint64_t thread_id = 0;
};

struct Stream {
    uint64_t id = 0;
    int agent = 0;
    bool is_default = false;
    std::deque<Item> queue;
    bool stop = false;
    bool running = false;    // the worker is executing the front item
    uint64_t completed = 0;  // kernel launches whose completion the application can see
    std::thread worker;
};

struct Streams {
    std::mutex mutex;
    std::condition_variable changed;  // any queue, any state: waiters re-check their own condition
    std::vector<Stream*> live;
    std::vector<Stream*> defaults;    // per agent, created on first use
    std::vector<int> holds;           // per agent: simToolHoldAgent nesting count
    uint64_t next_user_id = 0;
    simToolLaunchHook hook = nullptr;
    void* hook_user = nullptr;
    std::atomic<uint64_t> next_launch_id{1};
};

Streams& streams() {
    // Never destroyed: worker threads outlive static destruction at exit.
    static Streams* s = [] {
        auto* st = new Streams;
        st->defaults.assign(agents().size(), nullptr);
        st->holds.assign(agents().size(), 0);
        st->next_user_id = agents().size() + 1;
        return st;
    }();
    return *s;
}

thread_local int t_device = 0;

bool pending_placeholder(const Item& it) {
    return it.kind == Item::Kind::Kernel && it.launch->intercepted && it.launch->state == LaunchRec::State::Pending;
}

bool completed_placeholder(const Item& it) {
    return it.kind == Item::Kind::Kernel && it.launch->intercepted && it.launch->state == LaunchRec::State::Completed;
}

// Runnable = the worker may take it now: a pending placeholder holds the stream, and a held agent
// runs nothing that touches memory (popping a completed placeholder does not).
bool front_runnable(const Streams& st, const Stream& s) {
    if (s.queue.empty() || pending_placeholder(s.queue.front())) return false;
    return st.holds[static_cast<size_t>(s.agent)] == 0 || completed_placeholder(s.queue.front());
}

// Nothing more this stream will do for now: empty, waiting at an unresolved intercepted launch, or
// stopped by a hold of its agent.
bool quiescent(const Streams& st, const Stream& s) {
    if (s.running) return false;
    return s.queue.empty() || pending_placeholder(s.queue.front()) || st.holds[static_cast<size_t>(s.agent)] > 0;
}

// A copy the application asked for: what the copy callback reports of the call that issued it.
simToolCopy copy_of(simToolApiId id, void* dst, const void* src, size_t size, uint64_t api_value,
                    uint64_t thread_id) {
    simToolCopy c{};
    c.id = id;
    c.bytes = size;
    c.src = src;
    c.dst = dst;
    c.api_value = api_value;
    c.thread_id = thread_id;
    return c;
}

// The copy itself, timed (two clock reads: nothing next to a copy).
void timed_copy(simToolCopy& c) {
    c.start_ns = now_ns();
    std::memmove(c.dst, c.src, c.bytes);
    c.end_ns = now_ns();
}

void run_item(const Stream& s, const Item& it) {
    switch (it.kind) {
    case Item::Kind::Copy: {
        simToolCopy c = copy_of(SIM_API_ID_simMemcpyAsync, it.dst, it.src, it.size, it.api_value, it.thread_id);
        c.stream = it.handle;
        c.stream_id = s.id;
        timed_copy(c);
        report_copy(c);
        break;
    }
    case Item::Kind::Set: std::memset(it.dst, it.value, it.size); break;
    case Item::Kind::Kernel: {
        LaunchRec& rec = *it.launch;
        if (rec.intercepted && rec.state == LaunchRec::State::Completed) break;  // the tool ran it
        simExecResult result;
        execute_launch(rec, &result);
        if (rec.done) rec.done(&rec.pub, &result, rec.done_user);
        break;
    }
    }
}

void worker_loop(Stream* s) {
    Streams& st = streams();
    std::unique_lock<std::mutex> lock(st.mutex);
    for (;;) {
        st.changed.wait(lock, [&] { return front_runnable(st, *s) || (s->stop && s->queue.empty()); });
        if (s->queue.empty()) return;  // stopping
        Item it = s->queue.front();
        s->running = true;
        lock.unlock();
        run_item(*s, it);
        lock.lock();
        s->running = false;
        s->queue.pop_front();
        if (it.kind == Item::Kind::Kernel) ++s->completed;
        st.changed.notify_all();
    }
}

// Caller holds the lock.
Stream* new_stream(Streams& st, int agent, bool is_default) {
    auto* s = new Stream;
    s->agent = agent;
    s->is_default = is_default;
    s->id = is_default ? static_cast<uint64_t>(agent) + 1 : st.next_user_id++;
    s->worker = std::thread(worker_loop, s);
    st.live.push_back(s);
    return s;
}

// Caller holds the lock. nullptr (with the error recorded) for an unknown handle.
Stream* resolve(Streams& st, simStream_t handle, const char* call) {
    if (!handle) {
        Stream*& d = st.defaults[static_cast<size_t>(t_device)];
        if (!d) d = new_stream(st, t_device, true);
        return d;
    }
    auto* s = reinterpret_cast<Stream*>(handle);
    if (std::find(st.live.begin(), st.live.end(), s) == st.live.end()) {
        fail(simErrorInvalidHandle, call, "unknown or destroyed stream");
        return nullptr;
    }
    return s;
}

void push(Streams& st, Stream* s, Item&& it) {
    s->queue.push_back(std::move(it));
    st.changed.notify_all();
}

template <typename Pred>
void wait_streams(Streams& st, std::unique_lock<std::mutex>& lock, Pred pred) {
    st.changed.wait(lock, [&] {
        for (Stream* s : st.live)
            if (!pred(*s)) return false;
        return true;
    });
}

simError_t enqueue_memory(Item&& it, simStream_t stream, const char* call) {
    Streams& st = streams();
    std::lock_guard<std::mutex> lock(st.mutex);
    Stream* s = resolve(st, stream, call);
    if (!s) return simErrorInvalidHandle;
    push(st, s, std::move(it));
    return simSuccess;
}

simError_t resolve_launch_for_tool(const simLaunch* launch, const char* call, LaunchRec** out) {
    LaunchRec* rec = launch_rec(launch);
    if (!rec) return fail(simErrorInvalidHandle, call, "not a launch the runtime handed out");
    if (!rec->intercepted) return fail(simErrorInvalidHandle, call, "the launch was not intercepted by a hook");
    if (rec->state != LaunchRec::State::Pending)
        return fail(simErrorAlreadyDone, call,
                    std::string("launch ") + std::to_string(rec->pub.launch_id) + " was already " +
                        (rec->state == LaunchRec::State::Completed ? "completed" : "enqueued"));
    *out = rec;
    return simSuccess;
}

}  // namespace

LaunchRec* launch_rec(const simLaunch* l) {
    if (!l) return nullptr;
    auto* rec = static_cast<LaunchRec*>(l->internal_);
    if (!rec || rec->magic != LaunchRec::kMagic || &rec->pub != l) return nullptr;
    return rec;
}

int current_device() { return t_device; }
void set_current_device(int d) { t_device = d; }

simError_t with_device_idle(const std::function<simError_t()>& op) {
    Streams& st = streams();
    std::unique_lock<std::mutex> lock(st.mutex);
    st.changed.wait(lock, [&st] {
        for (int h : st.holds)
            if (h > 0) return false;
        for (Stream* s : st.live)
            if (!s->queue.empty()) return false;
        return true;
    });
    return op();
}

simError_t sync_agent(int agent, const char* call) {
    Streams& st = streams();
    std::unique_lock<std::mutex> lock(st.mutex);
    wait_streams(st, lock, [agent](const Stream& s) { return s.agent != agent || s.queue.empty(); });
    return simSuccess;
}

}  // namespace gorocprof::sim

using namespace gorocprof::sim;

extern "C" {

static simError_t simMemcpy_body(void* dst, const void* src, size_t size) {
    if (simError_t e = enter_app("simMemcpy")) return e;
    if (size == 0) return simSuccess;
    if (!dst || !src) return fail(simErrorInvalidValue, "simMemcpy", "NULL pointer");
    simToolCopy c = copy_of(SIM_API_ID_simMemcpy, dst, src, size, current_api_value(), os_thread_id());
    simError_t e = with_device_idle([&] {
        timed_copy(c);
        return simSuccess;
    });
    // Reported outside the idle window: the callback may call into the runtime.
    if (e == simSuccess) report_copy(c);
    return e;
}

static simError_t simMemset_body(void* dst, int value, size_t size) {
    if (simError_t e = enter_app("simMemset")) return e;
    if (size == 0) return simSuccess;
    if (!dst) return fail(simErrorInvalidValue, "simMemset", "NULL pointer");
    return with_device_idle([&] {
        std::memset(dst, value, size);
        return simSuccess;
    });
}

static simError_t simMemcpyAsync_body(void* dst, const void* src, size_t size, simStream_t stream) {
    if (simError_t e = enter_app("simMemcpyAsync")) return e;
    if (size == 0) return simSuccess;
    if (!dst || !src) return fail(simErrorInvalidValue, "simMemcpyAsync", "NULL pointer");
    Item it;
    it.kind = Item::Kind::Copy;
    it.dst = dst;
    it.src = src;
    it.size = size;
    it.handle = stream;
    it.api_value = current_api_value();
    it.thread_id = os_thread_id();
    return enqueue_memory(std::move(it), stream, "simMemcpyAsync");
}

static simError_t simMemsetAsync_body(void* dst, int value, size_t size, simStream_t stream) {
    if (simError_t e = enter_app("simMemsetAsync")) return e;
    if (size == 0) return simSuccess;
    if (!dst) return fail(simErrorInvalidValue, "simMemsetAsync", "NULL pointer");
    Item it;
    it.kind = Item::Kind::Set;
    it.dst = dst;
    it.value = value;
    it.size = size;
    return enqueue_memory(std::move(it), stream, "simMemsetAsync");
}

static simError_t simStreamCreate_body(simStream_t* stream) {
    if (simError_t e = enter_app("simStreamCreate")) return e;
    if (!stream) return fail(simErrorInvalidValue, "simStreamCreate", "stream is NULL");
    Streams& st = streams();
    std::lock_guard<std::mutex> lock(st.mutex);
    *stream = reinterpret_cast<simStream_t>(new_stream(st, t_device, false));
    return simSuccess;
}

static simError_t simStreamDestroy_body(simStream_t stream) {
    if (simError_t e = enter_app("simStreamDestroy")) return e;
    if (!stream) return fail(simErrorInvalidHandle, "simStreamDestroy", "the default stream cannot be destroyed");
    Streams& st = streams();
    std::unique_lock<std::mutex> lock(st.mutex);
    Stream* s = resolve(st, stream, "simStreamDestroy");
    if (!s) return simErrorInvalidHandle;
    st.changed.wait(lock, [&] { return s->queue.empty(); });
    s->stop = true;
    st.live.erase(std::find(st.live.begin(), st.live.end(), s));
    st.changed.notify_all();
    lock.unlock();
    s->worker.join();
    delete s;
    return simSuccess;
}

static simError_t simStreamSynchronize_body(simStream_t stream) {
    if (simError_t e = enter_app("simStreamSynchronize")) return e;
    Streams& st = streams();
    std::unique_lock<std::mutex> lock(st.mutex);
    Stream* s = resolve(st, stream, "simStreamSynchronize");
    if (!s) return simErrorInvalidHandle;
    st.changed.wait(lock, [&] { return s->queue.empty(); });
    return simSuccess;
}

static simError_t simDeviceSynchronize_body(void) {
    if (simError_t e = enter_app("simDeviceSynchronize")) return e;
    return sync_agent(t_device, "simDeviceSynchronize");
}

static simError_t simStreamCompletedLaunches_body(simStream_t stream, uint64_t* completed) {
    if (simError_t e = enter_app("simStreamCompletedLaunches")) return e;
    if (!completed) return fail(simErrorInvalidValue, "simStreamCompletedLaunches", "completed is NULL");
    Streams& st = streams();
    std::lock_guard<std::mutex> lock(st.mutex);
    Stream* s = resolve(st, stream, "simStreamCompletedLaunches");
    if (!s) return simErrorInvalidHandle;
    *completed = s->completed;
    return simSuccess;
}

static simError_t simLaunchKernel_body(simKernel_t kernel, simDim3 grid, simDim3 block, uint32_t dynamic_lds,
                           simStream_t stream, const void* args, size_t args_size) {
    const char* call = "simLaunchKernel";
    if (simError_t e = enter_app(call)) return e;
    if (!valid_kernel(kernel)) return fail(simErrorInvalidHandle, call, "unknown kernel handle");
    if (args_size && !args) return fail(simErrorInvalidValue, call, "args is NULL but args_size is not 0");
    if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z)
        return fail(simErrorInvalidValue, call, "grid and block dimensions must be at least 1");
    KernelRec* k = kernel_rec(kernel);

    auto rec = std::make_shared<LaunchRec>();
    rec->kernel = k;
    rec->args.assign(static_cast<const unsigned char*>(args), static_cast<const unsigned char*>(args) + args_size);
    simLaunch& l = rec->pub;
    l.kernel = kernel;
    l.kernel_serial = k->serial;
    l.kernel_name = k->name.c_str();
    l.attrs = k->attrs;
    if (!l.attrs.kernarg_size) l.attrs.kernarg_size = static_cast<uint32_t>(args_size);
    l.grid_blocks = grid;
    l.block = block;
    const uint64_t gx = uint64_t{grid.x} * block.x, gy = uint64_t{grid.y} * block.y, gz = uint64_t{grid.z} * block.z;
    if (gx > UINT32_MAX || gy > UINT32_MAX || gz > UINT32_MAX)
        return fail(simErrorInvalidConfiguration, call, "grid size in work-items exceeds 2^32-1 in a dimension");
    l.grid_size = simDim3{static_cast<uint32_t>(gx), static_cast<uint32_t>(gy), static_cast<uint32_t>(gz)};
    l.dynamic_lds = dynamic_lds;
    l.group_segment_size = k->attrs.lds_bytes + dynamic_lds;
    l.args = rec->args.empty() ? nullptr : rec->args.data();
    l.args_size = args_size;
    l.thread_id = os_thread_id();
    l.api_value = current_api_value();
    l.internal_ = rec.get();

    Streams& st = streams();
    std::unique_lock<std::mutex> lock(st.mutex);
    Stream* s = resolve(st, stream, call);
    if (!s) return simErrorInvalidHandle;
    const simAgentDesc& agent = agents()[static_cast<size_t>(s->agent)];
    const uint64_t threads = uint64_t{block.x} * block.y * block.z;
    if (threads > agent.workgroup_max_size)
        return fail(simErrorInvalidConfiguration, call,
                    std::to_string(threads) + " work-items per work-group, the limit is " +
                        std::to_string(agent.workgroup_max_size));
    if (l.group_segment_size > uint64_t{agent.lds_size_kb} * 1024)
        return fail(simErrorInvalidConfiguration, call,
                    std::to_string(l.group_segment_size) + " bytes of LDS, " + agent.name + " has " +
                        std::to_string(agent.lds_size_kb) + " KiB");
    l.agent = s->agent;
    l.stream = stream;
    l.stream_id = s->id;
    l.launch_id = st.next_launch_id.fetch_add(1);
    simToolLaunchHook hook = st.hook;
    void* hook_user = st.hook_user;
    rec->intercepted = hook != nullptr;
    Item it;
    it.kind = Item::Kind::Kernel;
    it.launch = rec;
    push(st, s, std::move(it));
    lock.unlock();
    // `rec` keeps the launch alive until the hook returns, even if the worker already popped it.
    if (hook) hook(&rec->pub, hook_user);
    return simSuccess;
}

simError_t simToolSetLaunchHook(simToolLaunchHook hook, void* user) {
    if (simError_t e = enter_tool("simToolSetLaunchHook")) return e;
    Streams& st = streams();
    std::lock_guard<std::mutex> lock(st.mutex);
    st.hook = hook;
    st.hook_user = user;
    return simSuccess;
}

simError_t simToolDrain(int agent) {
    if (simError_t e = enter_tool("simToolDrain")) return e;
    if (!valid_agent(agent)) return fail(simErrorInvalidDevice, "simToolDrain", "no agent " + std::to_string(agent));
    Streams& st = streams();
    std::unique_lock<std::mutex> lock(st.mutex);
    wait_streams(st, lock, [&st, agent](const Stream& s) { return s.agent != agent || quiescent(st, s); });
    return simSuccess;
}

simError_t simToolHoldAgent(int agent) {
    if (simError_t e = enter_tool("simToolHoldAgent")) return e;
    if (!valid_agent(agent)) return fail(simErrorInvalidDevice, "simToolHoldAgent", "no agent " + std::to_string(agent));
    Streams& st = streams();
    std::lock_guard<std::mutex> lock(st.mutex);
    ++st.holds[static_cast<size_t>(agent)];
    return simSuccess;
}

simError_t simToolReleaseAgent(int agent) {
    if (simError_t e = enter_tool("simToolReleaseAgent")) return e;
    if (!valid_agent(agent)) return fail(simErrorInvalidDevice, "simToolReleaseAgent", "no agent " + std::to_string(agent));
    Streams& st = streams();
    std::lock_guard<std::mutex> lock(st.mutex);
    int& holds = st.holds[static_cast<size_t>(agent)];
    if (holds == 0) return fail(simErrorInvalidValue, "simToolReleaseAgent", "agent " + std::to_string(agent) + " is not held");
    if (--holds == 0) st.changed.notify_all();
    return simSuccess;
}

simError_t simToolComplete(const simLaunch* launch) {
    Streams& st = streams();
    std::lock_guard<std::mutex> lock(st.mutex);
    LaunchRec* rec = nullptr;
    if (simError_t e = resolve_launch_for_tool(launch, "simToolComplete", &rec)) return e;
    rec->state = LaunchRec::State::Completed;
    st.changed.notify_all();
    return simSuccess;
}

simError_t simToolEnqueueWithCallback(const simLaunch* launch, simToolExecDoneFn done, void* user) {
    Streams& st = streams();
    std::lock_guard<std::mutex> lock(st.mutex);
    LaunchRec* rec = nullptr;
    if (simError_t e = resolve_launch_for_tool(launch, "simToolEnqueue", &rec)) return e;
    rec->done = done;
    rec->done_user = user;
    rec->state = LaunchRec::State::Enqueued;
    st.changed.notify_all();
    return simSuccess;
}

simError_t simToolEnqueue(const simLaunch* launch) { return simToolEnqueueWithCallback(launch, nullptr, nullptr); }

}  // extern "C"

// The reported faces of the calls above (sim_tool.h, "API and copy tracing").
namespace {

// The arguments of a copy or set: where its ends live (a set has no source) and the stream.
void fill_copy(simToolApiCall& c, void* dst, const void* src, size_t size, simStream_t stream) {
    c.dst = dst;
    c.src = src;
    c.bytes = size;
    c.stream = stream;
    c.dst_device = device_of(dst);
    if (src) {
        c.src_device = device_of(src);
        c.copy_kind = copy_kind(c.src_device, c.dst_device);
    }
}

}  // namespace

extern "C" {

simError_t simMemcpy(void* dst, const void* src, size_t size) {
    ApiScope api(SIM_API_ID_simMemcpy);
    api.enter([&](simToolApiCall& c) { fill_copy(c, dst, src, size, nullptr); });
    return api.ret(simMemcpy_body(dst, src, size));
}

simError_t simMemset(void* dst, int value, size_t size) {
    ApiScope api(SIM_API_ID_simMemset);
    api.enter([&](simToolApiCall& c) { fill_copy(c, dst, nullptr, size, nullptr); });
    return api.ret(simMemset_body(dst, value, size));
}

simError_t simMemcpyAsync(void* dst, const void* src, size_t size, simStream_t stream) {
    ApiScope api(SIM_API_ID_simMemcpyAsync);
    api.enter([&](simToolApiCall& c) { fill_copy(c, dst, src, size, stream); });
    return api.ret(simMemcpyAsync_body(dst, src, size, stream));
}

simError_t simMemsetAsync(void* dst, int value, size_t size, simStream_t stream) {
    ApiScope api(SIM_API_ID_simMemsetAsync);
    api.enter([&](simToolApiCall& c) { fill_copy(c, dst, nullptr, size, stream); });
    return api.ret(simMemsetAsync_body(dst, value, size, stream));
}

simError_t simStreamCreate(simStream_t* stream) {
    ApiScope api(SIM_API_ID_simStreamCreate);
    api.enter();
    return api.ret(simStreamCreate_body(stream));
}

simError_t simStreamDestroy(simStream_t stream) {
    ApiScope api(SIM_API_ID_simStreamDestroy);
    api.enter([&](simToolApiCall& c) { c.stream = stream; });
    return api.ret(simStreamDestroy_body(stream));
}

simError_t simStreamSynchronize(simStream_t stream) {
    ApiScope api(SIM_API_ID_simStreamSynchronize);
    api.enter([&](simToolApiCall& c) { c.stream = stream; });
    return api.ret(simStreamSynchronize_body(stream));
}

simError_t simDeviceSynchronize(void) {
    ApiScope api(SIM_API_ID_simDeviceSynchronize);
    api.enter();
    return api.ret(simDeviceSynchronize_body());
}

simError_t simStreamCompletedLaunches(simStream_t stream, uint64_t* completed) {
    ApiScope api(SIM_API_ID_simStreamCompletedLaunches);
    api.enter([&](simToolApiCall& c) { c.stream = stream; });
    return api.ret(simStreamCompletedLaunches_body(stream, completed));
}

simError_t simLaunchKernel(simKernel_t kernel, simDim3 grid, simDim3 block, uint32_t dynamic_lds,
                           simStream_t stream, const void* args, size_t args_size) {
    ApiScope api(SIM_API_ID_simLaunchKernel);
    api.enter([&](simToolApiCall& c) {
        c.stream = stream;
        c.kernel_name = valid_kernel(kernel) ? kernel_rec(kernel)->name.c_str() : nullptr;
    });
    return api.ret(simLaunchKernel_body(kernel, grid, block, dynamic_lds, stream, args, args_size));
}

}  // extern "C"
