// Buffers and buffer tracing of the emulated SDK. A buffer collects the records of the services that
// name it; at its watermark, and when flushed, the records go to the tool's callback on the SDK's
// callback thread (one thread here, as the SDK's default), in the order they were made. The tool's
// thread never runs its own callback: a flush waits for the callback thread instead.
#include "emulator.hpp"

#include <pthread.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <new>
#include <thread>

namespace gorocprof::rocmemu {
namespace {

struct Buffer {
    rocprofiler_buffer_id_t id{};
    rocprofiler_context_id_t context{};
    size_t watermark = 0;
    rocprofiler_buffer_tracing_cb_t callback = nullptr;
    void* data = nullptr;
    std::mutex mu;
    std::vector<BufferedRecord> pending;
    bool destroyed = false;
};

constexpr size_t kMaxBuffers = 64;
std::mutex g_buffers_mu;
Buffer* g_buffers[kMaxBuffers] = {};  // handle = index + 1; never freed (records may be due at exit)

Buffer* buffer_by_handle(uint64_t handle) {
    std::lock_guard<std::mutex> lock(g_buffers_mu);
    if (handle == 0 || handle > kMaxBuffers) return nullptr;
    return g_buffers[handle - 1];
}

// The SDK's callback thread: runs the tool's buffer callbacks, one batch at a time, in order.
class CallbackThread;
CallbackThread* g_callback_thread = nullptr;  // never stopped: flushes run from exit()
std::mutex g_callback_thread_mu;

void forget_parents_records();

class CallbackThread {
public:
    static CallbackThread& instance() {
        std::lock_guard<std::mutex> lock(g_callback_thread_mu);
        if (g_callback_thread == nullptr) {
            static bool registered = (pthread_atfork(nullptr, nullptr, forget_parents_records), true);
            (void)registered;
            g_callback_thread = new CallbackThread;
        }
        return *g_callback_thread;
    }

    // Queues a batch; with wait, returns once it (and every batch before it) has been delivered.
    // Without, it still waits while kMaxQueued batches are undelivered: a lossless buffer holds the
    // thread that fills it rather than growing without bound.
    void deliver(Buffer* b, std::vector<BufferedRecord>&& records, bool wait) {
        std::unique_lock<std::mutex> lock(mu_);
        uint64_t ticket = ++queued_;
        jobs_.push_back(Job{b, std::move(records)});
        cv_.notify_all();
        if (std::this_thread::get_id() == id_) return;
        if (wait)
            cv_.wait(lock, [&] { return delivered_ >= ticket; });
        else
            cv_.wait(lock, [&] { return queued_ - delivered_ <= kMaxQueued; });
    }

private:
    static constexpr uint64_t kMaxQueued = 4;
    struct Job {
        Buffer* buffer;
        std::vector<BufferedRecord> records;
    };

    CallbackThread() {
        std::thread worker([this] { loop(); });
        id_ = worker.get_id();
        worker.detach();
    }

    void loop() {
        std::vector<rocprofiler_record_header_t> headers;
        std::vector<rocprofiler_record_header_t*> ptrs;
        std::unique_lock<std::mutex> lock(mu_);
        for (;;) {
            cv_.wait(lock, [this] { return !jobs_.empty(); });
            Job job = std::move(jobs_.front());
            jobs_.pop_front();
            lock.unlock();
            if (!job.records.empty()) {
                headers.resize(job.records.size());
                ptrs.resize(job.records.size());
                for (size_t i = 0; i < job.records.size(); ++i) {
                    headers[i].category = ROCPROFILER_BUFFER_CATEGORY_TRACING;
                    headers[i].kind = job.records[i].kind;
                    headers[i].payload = &job.records[i].u;
                    ptrs[i] = &headers[i];
                }
                job.buffer->callback(job.buffer->context, job.buffer->id, ptrs.data(), ptrs.size(), job.buffer->data, 0);
            }
            lock.lock();
            ++delivered_;
            cv_.notify_all();
        }
    }

    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Job> jobs_;
    uint64_t queued_ = 0, delivered_ = 0;
    std::thread::id id_;
};

// A forked child has no callback thread and none of the parent's records: the parent delivers those.
// The old thread object is left behind (its thread does not exist here, its locks may be held).
void forget_parents_records() {
    new (&g_callback_thread_mu) std::mutex;
    g_callback_thread = nullptr;
    new (&g_buffers_mu) std::mutex;
    for (Buffer* b : g_buffers) {
        if (b == nullptr) continue;
        new (&b->mu) std::mutex;
        new (&b->pending) std::vector<BufferedRecord>;  // the parent's storage is left behind too
    }
}

void flush(Buffer* b, bool wait) {
    std::vector<BufferedRecord> out;
    {
        std::lock_guard<std::mutex> lock(b->mu);
        out.swap(b->pending);
    }
    CallbackThread::instance().deliver(b, std::move(out), wait);
}

// The buffer tracing kinds by number, as rocprofiler_query_buffer_tracing_kind_name names them.
const char* const kBufferKindNames[] = {
    "NONE", "HSA_CORE_API", "HSA_AMD_EXT_API", "HSA_IMAGE_EXT_API", "HSA_FINALIZE_EXT_API", "HIP_RUNTIME_API",
    "HIP_COMPILER_API", "MARKER_CORE_API", "MARKER_CONTROL_API", "MARKER_NAME_API", "MEMORY_COPY", "KERNEL_DISPATCH",
    "SCRATCH_MEMORY", "CORRELATION_ID_RETIREMENT", "RCCL_API", "OMPT", "MEMORY_ALLOCATION", "RUNTIME_INITIALIZATION",
    "ROCDECODE_API", "ROCJPEG_API", "HIP_STREAM", "HIP_RUNTIME_API_EXT", "HIP_COMPILER_API_EXT", "ROCDECODE_API_EXT",
    "KFD_EVENT_PAGE_MIGRATE", "KFD_EVENT_PAGE_FAULT", "KFD_EVENT_QUEUE", "KFD_EVENT_UNMAP_FROM_GPU",
    "KFD_EVENT_DROPPED_EVENTS", "KFD_PAGE_MIGRATE", "KFD_PAGE_FAULT", "KFD_QUEUE", "MARKER_CORE_RANGE_API"};
static_assert(sizeof kBufferKindNames / sizeof kBufferKindNames[0] == ROCPROFILER_BUFFER_TRACING_LAST,
              "one name per buffer tracing kind");

// The kinds whose records the emulator makes (the others are configured with NOT_IMPLEMENTED).
bool emulated_kind(int kind) {
    switch (kind) {
        case ROCPROFILER_BUFFER_TRACING_HSA_CORE_API:
        case ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API:
        case ROCPROFILER_BUFFER_TRACING_HSA_IMAGE_EXT_API:
        case ROCPROFILER_BUFFER_TRACING_HSA_FINALIZE_EXT_API:
        case ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API:
        case ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API:
        case ROCPROFILER_BUFFER_TRACING_MEMORY_COPY:
        case ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH: return true;
        default: return false;
    }
}

}  // namespace

bool BufferService::covers(int operation) const {
    if (operations.empty()) return true;
    for (rocprofiler_tracing_operation_t op : operations)
        if (op == operation) return true;
    return false;
}

bool buffer_traced(int kind, int operation) {
    State& s = state();
    for (int i = 0; i < kMaxContexts; ++i) {
        const Context& c = s.contexts[i];
        if (!c.created || !c.started.load()) continue;
        for (const BufferService& b : c.buffer_tracing)
            if (b.kind == kind && b.covers(operation)) return true;
    }
    return false;
}

void buffer_record(int operation, const BufferedRecord& record) {
    State& s = state();
    for (int i = 0; i < kMaxContexts; ++i) {
        const Context& c = s.contexts[i];
        if (!c.created || !c.started.load()) continue;
        for (const BufferService& svc : c.buffer_tracing) {
            if (svc.kind != static_cast<int>(record.kind) || !svc.covers(operation)) continue;
            Buffer* b = buffer_by_handle(svc.buffer);
            if (b == nullptr) continue;
            bool full = false;
            {
                std::lock_guard<std::mutex> lock(b->mu);
                if (b->destroyed) continue;
                b->pending.push_back(record);
                full = b->pending.size() * sizeof(BufferedRecord) >= b->watermark;
            }
            if (full) flush(b, false);
        }
    }
}

}  // namespace gorocprof::rocmemu

using namespace gorocprof::rocmemu;

extern "C" {

rocprofiler_status_t rocprofiler_create_buffer(rocprofiler_context_id_t context, size_t size, size_t watermark,
                                               rocprofiler_buffer_policy_t policy, rocprofiler_buffer_tracing_cb_t callback,
                                               void* callback_data, rocprofiler_buffer_id_t* buffer_id) {
    State& s = state();
    if (s.locked.load()) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    if (context_by_handle(context.handle) == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    if (callback == nullptr || buffer_id == nullptr || size == 0 || watermark > size ||
        (policy != ROCPROFILER_BUFFER_POLICY_DISCARD && policy != ROCPROFILER_BUFFER_POLICY_LOSSLESS))
        return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    std::lock_guard<std::mutex> lock(g_buffers_mu);
    for (size_t i = 0; i < kMaxBuffers; ++i) {
        if (g_buffers[i] != nullptr) continue;
        Buffer* b = new Buffer;
        b->id.handle = i + 1;
        b->context = context;
        b->watermark = watermark;
        b->callback = callback;
        b->data = callback_data;
        g_buffers[i] = b;
        buffer_id->handle = i + 1;
        return ROCPROFILER_STATUS_SUCCESS;
    }
    return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
}

rocprofiler_status_t rocprofiler_flush_buffer(rocprofiler_buffer_id_t buffer_id) {
    Buffer* b = buffer_by_handle(buffer_id.handle);
    if (b == nullptr) return ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
    flush(b, true);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_destroy_buffer(rocprofiler_buffer_id_t buffer_id) {
    Buffer* b = buffer_by_handle(buffer_id.handle);
    if (b == nullptr) return ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
    flush(b, true);
    std::lock_guard<std::mutex> lock(b->mu);
    b->destroyed = true;  // kept: a service may still name it
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_configure_buffer_tracing_service(rocprofiler_context_id_t context_id,
                                                                  rocprofiler_buffer_tracing_kind_t kind,
                                                                  const rocprofiler_tracing_operation_t* operations,
                                                                  size_t operations_count,
                                                                  rocprofiler_buffer_id_t buffer_id) {
    State& s = state();
    if (s.locked.load()) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    Context* c = context_by_handle(context_id.handle);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    if (buffer_by_handle(buffer_id.handle) == nullptr) return ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
    int k = static_cast<int>(kind);
    if (k <= ROCPROFILER_BUFFER_TRACING_NONE || k >= ROCPROFILER_BUFFER_TRACING_LAST)
        return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    if (!emulated_kind(k)) return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
    std::lock_guard<std::mutex> lock(s.mu);
    for (const BufferService& b : c->buffer_tracing)
        if (b.kind == k) return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
    BufferService svc;
    svc.kind = k;
    svc.buffer = buffer_id.handle;
    if (operations != nullptr) {
        for (size_t i = 0; i < operations_count; ++i)
            if (tracing::operation_name(k, operations[i]) == nullptr) return ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND;
        svc.operations.assign(operations, operations + operations_count);
    }
    c->buffer_tracing.push_back(std::move(svc));
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_query_buffer_tracing_kind_name(rocprofiler_buffer_tracing_kind_t kind, const char** name,
                                                                uint64_t* name_len) {
    int k = static_cast<int>(kind);
    if (k <= ROCPROFILER_BUFFER_TRACING_NONE || k >= ROCPROFILER_BUFFER_TRACING_LAST)
        return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    if (name != nullptr) *name = kBufferKindNames[k];
    if (name_len != nullptr) *name_len = std::strlen(kBufferKindNames[k]);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_query_buffer_tracing_kind_operation_name(rocprofiler_buffer_tracing_kind_t kind,
                                                                          rocprofiler_tracing_operation_t operation,
                                                                          const char** name, uint64_t* name_len) {
    int k = static_cast<int>(kind);
    if (k <= ROCPROFILER_BUFFER_TRACING_NONE || k >= ROCPROFILER_BUFFER_TRACING_LAST)
        return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    const char* n = tracing::operation_name(k, operation);
    if (n == nullptr) return ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND;
    if (name != nullptr) *name = n;
    if (name_len != nullptr) *name_len = std::strlen(n);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_iterate_buffer_tracing_kinds(rocprofiler_buffer_tracing_kind_cb_t callback, void* data) {
    if (callback == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    for (int k = ROCPROFILER_BUFFER_TRACING_NONE + 1; k < ROCPROFILER_BUFFER_TRACING_LAST; ++k)
        if (callback(static_cast<rocprofiler_buffer_tracing_kind_t>(k), data) != 0) break;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_iterate_buffer_tracing_kind_operations(rocprofiler_buffer_tracing_kind_t kind,
                                                                        rocprofiler_buffer_tracing_kind_operation_cb_t callback,
                                                                        void* data) {
    if (callback == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    int k = static_cast<int>(kind);
    if (k <= ROCPROFILER_BUFFER_TRACING_NONE || k >= ROCPROFILER_BUFFER_TRACING_LAST)
        return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    // The emulated operations only: their numbers are the SDK's, with gaps between them.
    for (int op = 0; op < kMaxOperation; ++op)
        if (tracing::operation_name(k, op) != nullptr && callback(kind, op, data) != 0) break;
    return ROCPROFILER_STATUS_SUCCESS;
}

}  // extern "C"
