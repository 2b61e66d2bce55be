// Core: start-up (configuration, record file, contexts), the replay domain callbacks, and the end of
// the process (exit, fork).
#include "core.hpp"

#include "core_internal.hpp"
#include "log.hpp"
#include "replay_service.hpp"
#include "state.hpp"
#include "trace.hpp"

#include <pthread.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <thread>

namespace gorocprof::core {
namespace detail {
namespace {

std::atomic<State*> g_state{nullptr};
thread_local uint64_t t_published_pass = UINT64_MAX;

std::vector<std::string> read_cmdline() {
    std::vector<std::string> args;
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t start = 0;
    for (size_t i = 0; i < all.size(); ++i) {
        if (all[i] == '\0') {
            args.push_back(all.substr(start, i - start));
            start = i + 1;
        }
    }
    if (start < all.size()) args.push_back(all.substr(start));
    return args;
}

std::string header_line(const State& s) {
    records::Header h;
    h.pid = s.pid;
    h.ppid = ::getppid();
    h.backend = s.backend;
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0) h.hostname = host;
    h.init_time = now_ns();
    h.cmdline = read_cmdline();
    std::string line;
    records::append_header(line, h);
    return line;
}

// Opens the record file and writes the header. False (after printing why) when no file can be written.
bool open_records(State& s) {
    std::string error;
    if (!s.file.open(s.config.run_dir, s.pid, &error)) {
        log(LogLevel::Error, "error: cannot write records, the application runs unprofiled: " + error);
        return false;
    }
    write_lines(s, header_line(s));
    return true;
}

// A forked child's first line: its own file, with the header and the parent's agent and kernel lines
// it may refer to. False when it cannot be opened (profiling of the child then stops).
bool open_child_records(State& s) {
    std::lock_guard<std::mutex> lock(s.open_mu);
    if (!s.open_pending.load()) return s.file.is_open();
    s.open_pending.store(false);
    if (!open_records(s)) {
        s.active = false;
        return false;
    }
    std::string inherited;
    inherited.swap(s.inherited);
    write_lines(s, inherited);
    return true;
}

std::string status_text(gorocprof_status_t st) {
    const char* text = gorocprof_get_status_string(st);
    return text != nullptr ? text : "status " + std::to_string(static_cast<int>(st));
}

// Creates (and for kernel replay configures) the contexts core owns. False with *error naming the call.
bool start_contexts(State& s, std::string* error) {
    auto check = [&](gorocprof_status_t st, const char* call) {
        if (st == GOROCPROF_STATUS_SUCCESS) return true;
        *error = std::string(call) + ": " + status_text(st);
        return false;
    };
    if (!check(gorocprof_create_context(&s.counter_context), "gorocprof_create_context(counter collection)") ||
        !check(gorocprof_start_context(s.counter_context), "gorocprof_start_context(counter collection)"))
        return false;
    if (s.config.replay_mode != ReplayMode::Kernel) return true;
    return check(gorocprof_create_context(&s.replay_context), "gorocprof_create_context(kernel replay)") &&
           check(gorocprof_configure_callback_tracing_service(s.replay_context, GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY,
                                                              nullptr, 0, replay_callback, nullptr),
                 "gorocprof_configure_callback_tracing_service(KERNEL_REPLAY)") &&
           check(gorocprof_start_context(s.replay_context), "gorocprof_start_context(kernel replay)");
}

// fork(): the child is another process and gets its own record file, complete with the agent and
// kernel lines it may refer to. The registry lock is held across fork so that the child never
// inherits a half-built preamble.
void before_fork() {
    State* s = g_state.load();
    if (s == nullptr) return;
    s->registry_mu.lock();
    s->open_mu.lock();
    s->file.lock();
}

void after_fork_parent() {
    State* s = g_state.load();
    if (s == nullptr) return;
    s->file.unlock();
    s->open_mu.unlock();
    s->registry_mu.unlock();
}

void after_fork_child() {
    State* s = g_state.load();
    if (s == nullptr) return;
    s->file.unlock();
    s->open_mu.unlock();
    // Writers that were in flight in the parent do not exist here.
    s->writers = 0;
    if (s->file.is_open() || s->open_pending.load()) {
        s->file.close();
        s->pid = ::getpid();
        s->finished = false;
        s->dispatches = 0;
        s->replayed = 0;
        s->declined = 0;
        s->write_failed = false;
        s->inherited = s->preamble;
        s->open_pending = true;
    }
    s->registry_mu.unlock();
}

void finish_at_exit() { Core::instance().finish(); }

bool initialize_locked(const char* backend) {
    State* s = new State;  // never freed, see state.hpp
    g_state.store(s, std::memory_order_release);
    s->backend = backend != nullptr ? backend : "";
    s->pid = ::getpid();

    std::string error;
    bool config_ok = load_config(&s->config, &error);
    set_log_level(s->config.log_level);
    if (s->config.run_dir.empty()) {
        log(LogLevel::Error, "error: " + error + "; the application runs unprofiled");
        return false;
    }
    if (!open_records(*s)) return false;
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    std::atexit(finish_at_exit);

    if (config_ok && s->config.backend != s->backend) {
        config_ok = false;
        error = "plan " + s->config.plan_path + ": backend \"" + s->config.backend + "\", but this is the " +
                s->backend + " tool library";
    }
    if (config_ok && !s->filter.configure(s->config.include_regex, s->config.exclude_regex,
                                          s->config.iteration_ranges, &error)) {
        config_ok = false;
        error = "plan " + s->config.plan_path + ": " + error;
    }
    if (config_ok && !start_contexts(*s, &error)) config_ok = false;
    if (!config_ok) {
        Core::instance().fatal(error + "; the application runs unprofiled");
        return false;
    }

    // The service's messages name the dispatch already. A declined replay reaches the record file
    // through end_dispatch(outcome), in the dispatch's own write; here it only goes to stderr.
    replay::ReplayService::instance().set_diagnostic_sink([](bool is_fatal, uint64_t, const std::string& message) {
        if (is_fatal) {
            Core::instance().fatal(message);
        } else {
            log(LogLevel::Warning, "warning: " + message);
        }
    });
    trace::detail::configure_trace(s->config.trace_domains);
    s->active = true;
    log(LogLevel::Info, "profiling with plan " + s->config.plan_path + ", records in " + s->file.path());
    return true;
}

}  // namespace

State* state() { return g_state.load(std::memory_order_acquire); }

const AgentSlot* agent_by_id(const State& s, uint64_t agent_id) {
    int n = s.agent_count.load(std::memory_order_acquire);
    for (int i = 0; i < n; ++i) {
        if (s.agents[i].id == agent_id) return &s.agents[i];
    }
    return nullptr;
}

const AgentSlot* agent_by_index(const State& s, int index) {
    int n = s.agent_count.load(std::memory_order_acquire);
    for (int i = 0; i < n; ++i) {
        if (s.agents[i].index == index) return &s.agents[i];
    }
    return nullptr;
}

void write_lines(State& s, const std::string& lines) {
    if (lines.empty()) return;
    if (s.open_pending.load(std::memory_order_acquire) && !open_child_records(s)) return;
    s.writers.fetch_add(1);
    if (!s.finished.load()) {
        std::string error;
        if (!s.file.write_all(lines, &error) && !s.write_failed.exchange(true))
            log(LogLevel::Error, "error: " + error + "; records of this process are incomplete, the application runs on");
    }
    s.writers.fetch_sub(1);
}

uint64_t pass_count(gorocprof_kernel_dispatch_info_t dispatch_info, gorocprof_user_data_t) {
    State* s = g_state.load(std::memory_order_acquire);
    if (s == nullptr) return 1;
    const AgentSlot* a = agent_by_id(*s, dispatch_info.agent_id.handle);
    if (a == nullptr || a->plan == nullptr) return 1;
    size_t n = a->plan->passes.size();
    return n > 1 ? n : 1;
}

void replay_callback(gorocprof_callback_tracing_record_t record, gorocprof_user_data_t*, void*) {
    if (record.kind != GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY || record.payload == nullptr) return;
    auto* payload = static_cast<gorocprof_callback_tracing_kernel_replay_data_t*>(record.payload);
    if (record.operation == GOROCPROF_KERNEL_REPLAY_CONFIG) {
        if (record.phase == GOROCPROF_CALLBACK_PHASE_ENTER) payload->replay_pass_count = pass_count;
    } else if (record.operation == GOROCPROF_KERNEL_REPLAY_PASS) {
        t_published_pass = record.phase == GOROCPROF_CALLBACK_PHASE_ENTER ? payload->current_pass : UINT64_MAX;
    }
}

}  // namespace detail

using detail::State;

uint64_t published_pass() { return detail::t_published_pass; }

int64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool Core::initialize(const char* backend) {
    static std::mutex mu;
    static bool done = false;
    static bool result = false;
    std::lock_guard<std::mutex> lock(mu);
    if (!done) {
        done = true;
        result = detail::initialize_locked(backend);
    }
    return result;
}

Core& Core::instance() {
    static Core core;
    return core;
}

bool Core::active() const {
    State* s = detail::state();
    return s != nullptr && s->active;
}

const Config& Core::config() const {
    static const Config* empty = new Config();  // never destroyed, as above
    State* s = detail::state();
    return s != nullptr ? s->config : *empty;
}

void Core::warn(const std::string& message) {
    log(LogLevel::Warning, "warning: " + message);
    State* s = detail::state();
    if (s == nullptr) return;
    std::string line;
    records::append_message(line, "warning", message);
    detail::write_lines(*s, line);
}

void Core::fatal(const std::string& message) {
    log(LogLevel::Error, "fatal: " + message);
    State* s = detail::state();
    if (s == nullptr) return;
    std::string line;
    records::append_message(line, "fatal", message);
    detail::write_lines(*s, line);
}

void Core::record_decline(uint64_t dispatch_id, const std::string& reason) {
    State* s = detail::state();
    if (s == nullptr) return;
    s->declined.fetch_add(1, std::memory_order_relaxed);
    std::string line;
    records::append_decline(line, dispatch_id, reason);
    detail::write_lines(*s, line);
}

void Core::finish() {
    State* s = detail::state();
    if (s == nullptr) return;
    if (!s->file.is_open() || s->pid != ::getpid() || s->finished.load()) return;
    // Every thread's unwritten trace lines go before `end`; nothing is traced after it. Tracing stops
    // first, so that no line can join a buffer flush_all has already emptied.
    trace::detail::stop_trace();
    trace::flush_all();
    if (s->finished.exchange(true)) return;
    // A write already past its `finished` check completes first; later ones are dropped.
    while (s->writers.load() != 0) std::this_thread::yield();
    records::End e;
    e.fini_time = now_ns();
    e.dispatches = s->dispatches.load();
    e.replayed = s->replayed.load();
    e.declined = s->declined.load();
    std::string line, error;
    records::append_end(line, e);
    // A stream that stopped says so in its own last line; its failure was reported when it stopped.
    if (!s->file.write_all(line, &error) && !s->write_failed.exchange(true)) log(LogLevel::Error, "error: " + error);
}

}  // namespace gorocprof::core
