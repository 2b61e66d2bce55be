#include "tool_harness.hpp"

#include <replay_service.hpp>

#include <stdexcept>

namespace fake {
namespace {
// replay_pass_count and replay_continue take no argument pointer: the one live Tool is global.
Tool* g_tool = nullptr;
}  // namespace

Tool::Tool(Port* log, std::vector<uint32_t> ops) : log_(log) {
    if (gorocprof_create_context(&context) != GOROCPROF_STATUS_SUCCESS)
        throw std::runtime_error("Tool: gorocprof_create_context failed");
    configure_status = gorocprof_configure_callback_tracing_service(
        context, GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY, ops.empty() ? nullptr : ops.data(), ops.size(),
        &Tool::callback, this);
    if (gorocprof_start_context(context) != GOROCPROF_STATUS_SUCCESS)
        throw std::runtime_error("Tool: gorocprof_start_context failed");
    g_tool = this;
}

Tool::~Tool() {
    gorocprof_stop_context(context);
    if (g_tool == this) g_tool = nullptr;
}

std::vector<Event> Tool::of(uint32_t operation, uint32_t phase) const {
    std::vector<Event> out;
    for (const auto& e : events)
        if (e.operation == operation && e.phase == phase) out.push_back(e);
    return out;
}

void Tool::callback(gorocprof_callback_tracing_record_t record, gorocprof_user_data_t* user_data, void* args) {
    auto* self = static_cast<Tool*>(args);
    auto* p = static_cast<Payload*>(record.payload);
    {
        std::lock_guard<std::mutex> lock(self->mu_);
        self->events.push_back(Event{record.operation, record.phase, p->dispatch_info.dispatch_id,
                                     record.correlation_id, p->current_pass, p->total_passes, user_data->value,
                                     record.context_id.handle});
    }
    bool config = record.operation == GOROCPROF_KERNEL_REPLAY_CONFIG;
    bool enter = record.phase == GOROCPROF_CALLBACK_PHASE_ENTER;
    if (self->log_) {
        std::string what = std::string(config ? "CONFIG" : "PASS") + (enter ? " ENTER" : " EXIT");
        if (!config) what += " " + std::to_string(p->current_pass);
        self->log_->note(what);
    }
    if (config && enter) {
        if (self->install_pass_count) p->replay_pass_count = &Tool::pass_count_cb;
        if (self->install_continue) p->replay_continue = &Tool::continue_cb;
    }
    const Hook& hook = config ? (enter ? self->on_config_enter : self->on_config_exit)
                              : (enter ? self->on_pass_enter : self->on_pass_exit);
    if (hook) hook(record, p, user_data);
}

uint64_t Tool::pass_count_cb(gorocprof_kernel_dispatch_info_t, gorocprof_user_data_t user_data) {
    if (g_tool->log_) g_tool->log_->note("pass_count");
    std::lock_guard<std::mutex> lock(g_tool->mu_);
    g_tool->pass_count_user_data.push_back(user_data.value);
    return g_tool->pass_count;
}

int Tool::continue_cb(gorocprof_kernel_dispatch_info_t info, uint64_t completed, gorocprof_user_data_t user_data) {
    if (g_tool->log_) g_tool->log_->note("continue " + std::to_string(completed));
    {
        std::lock_guard<std::mutex> lock(g_tool->mu_);
        g_tool->continue_passes.push_back(completed);
        g_tool->continue_user_data.push_back(user_data.value);
        g_tool->continue_dispatch_ids.push_back(info.dispatch_id);
    }
    return g_tool->keep_going(completed, user_data);
}

Diagnostics::Diagnostics() {
    gorocprof::replay::ReplayService::instance().set_diagnostic_sink(
        [this](bool fatal, uint64_t id, const std::string& message) {
            std::lock_guard<std::mutex> lock(mu_);
            got_.push_back({fatal, id, message});
        });
}

Diagnostics::~Diagnostics() { gorocprof::replay::ReplayService::instance().set_diagnostic_sink(nullptr); }

std::vector<Diagnostic> Diagnostics::all() const {
    std::lock_guard<std::mutex> lock(mu_);
    return got_;
}

}  // namespace fake
