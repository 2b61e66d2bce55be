// The record lines of one logical dispatch: collected per thread between begin_dispatch and
// end_dispatch, then written with one write(2). The thread's buffers keep their capacity, so a
// steady stream of dispatches allocates nothing here.
#include "core.hpp"

#include "log.hpp"
#include "replay_service.hpp"
#include "state.hpp"

#include <sys/syscall.h>
#include <unistd.h>

namespace gorocprof::core {

using detail::State;

namespace {

struct Frame {
    DispatchFacts facts;
    std::string lines;
    uint64_t passes_recorded = 0;
    uint64_t rotation_pass = kNotReplayed;
};

struct ThreadRecords {
    std::vector<Frame> frames;  // frames[0, depth) are open; deeper ones keep their buffers for reuse
    size_t depth = 0;
    uint64_t tid = 0;
};

thread_local ThreadRecords t_records;

Frame* current_frame() {
    ThreadRecords& t = t_records;
    return t.depth == 0 ? nullptr : &t.frames[t.depth - 1];
}

void report_misuse(const char* call) {
    static std::atomic<bool> reported{false};
    if (!reported.exchange(true))
        log(LogLevel::Error, "error: " + std::string(call) + ": no dispatch begun on this thread (backend bug); pass dropped");
}

// Closes the innermost frame: the caller appends any trailing line first.
void close_frame(State& s, Frame& f) {
    s.dispatches.fetch_add(1, std::memory_order_relaxed);
    detail::write_lines(s, f.lines);
    --t_records.depth;
}

}  // namespace

uint64_t detail::open_rotation_pass() {
    Frame* f = current_frame();
    return f != nullptr ? f->rotation_pass : kNotReplayed;
}

void Core::begin_dispatch(const DispatchFacts& facts) {
    State* s = detail::state();
    if (s == nullptr || !s->active) return;
    ThreadRecords& t = t_records;
    if (t.depth == t.frames.size()) {
        if (t.frames.capacity() == 0) t.frames.reserve(4);
        t.frames.emplace_back();
    }
    Frame& f = t.frames[t.depth++];
    f.facts = facts;
    if (f.facts.thread_id == 0) {
        if (t.tid == 0) t.tid = static_cast<uint64_t>(::syscall(SYS_gettid));
        f.facts.thread_id = t.tid;
    }
    f.lines.clear();
    f.passes_recorded = 0;
    f.rotation_pass = facts.rotation_pass != kNotReplayed ? facts.rotation_pass : selected_rotation_pass();
}

void Core::record_pass(PassRecord&& pass) { record_pass(static_cast<const PassRecord&>(pass)); }

void Core::record_pass(const PassRecord& pass) {
    State* s = detail::state();
    if (s == nullptr || !s->active) return;
    Frame* f = current_frame();
    if (f == nullptr) return report_misuse("record_pass");
    uint64_t number = pass.pass, total = pass.passes;
    if (number == kNotReplayed) {
        number = 0;
        total = 1;
        if (s->config.replay_mode == ReplayMode::Application) {
            number = static_cast<uint64_t>(s->config.application_pass);
            total = passes_for_agent(f->facts.agent_index).size();
        } else if (s->config.replay_mode == ReplayMode::Rotation && f->rotation_pass != kNotReplayed) {
            // As under application replay: the pass this dispatch collected of the agent's passes.
            number = f->rotation_pass;
            total = passes_for_agent(f->facts.agent_index).size();
        }
    }
    records::append_dispatch(f->lines, f->facts, number, total, pass);
    ++f->passes_recorded;
}

void Core::end_dispatch() {
    State* s = detail::state();
    if (s == nullptr || !s->active) return;
    Frame* f = current_frame();
    if (f == nullptr) return report_misuse("end_dispatch");
    if (f->passes_recorded > 1) s->replayed.fetch_add(1, std::memory_order_relaxed);
    close_frame(*s, *f);
}

void Core::end_dispatch(const replay::Outcome& outcome) {
    State* s = detail::state();
    if (s == nullptr || !s->active) return;
    Frame* f = current_frame();
    if (f == nullptr) return report_misuse("end_dispatch");
    if (outcome.replayed) s->replayed.fetch_add(1, std::memory_order_relaxed);
    if (outcome.declined) {
        s->declined.fetch_add(1, std::memory_order_relaxed);
        records::append_decline(f->lines, f->facts.info.dispatch_id, outcome.decline_reason);
    }
    close_frame(*s, *f);
}

}  // namespace gorocprof::core
