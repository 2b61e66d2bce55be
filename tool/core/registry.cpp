// Agents, kernels and what the plan asks of them: the agent/kernel records, the filter verdict per
// logical dispatch, and the pass -> counters mapping.
#include "core.hpp"

#include "log.hpp"
#include "names.hpp"
#include "state.hpp"

namespace gorocprof::core {

using detail::AgentSlot;
using detail::State;

namespace {

thread_local uint64_t t_rotation_pass = kNotReplayed;

const PlanAgent* plan_agent(const Config& c, int index) {
    for (const PlanAgent& a : c.agents) {
        if (a.index == index) return &a;
    }
    return nullptr;
}

// agent_label names an agent as gorocprof's messages do (docs/output.md, "Numbering"): by its number
// in the files (its logical node id, else its node id, else its handle), its GPU number (the plan's
// index) and its name.
std::string agent_label(const AgentInfo& agent) {
    int64_t node = 0;
    int64_t logical = 0;
    for (const auto& [key, value] : agent.props) {
        if (key == "node_id") node = value;
        if (key == "logical_node_id") logical = value;
    }
    const std::string number = logical > 0 ? std::to_string(logical)
                               : node > 0  ? std::to_string(node)
                                           : std::to_string(agent.id);
    return "Agent " + number + " (GPU " + std::to_string(agent.index) + ", " + agent.name + ")";
}

bool plan_has_counters(const Config& c) {
    for (const PlanAgent& a : c.agents) {
        if (!a.passes.empty()) return true;
    }
    return false;
}

}  // namespace

void Core::register_agent(const AgentInfo& agent) {
    State* s = detail::state();
    if (s == nullptr || !s->active) return;
    std::string warning;
    {
        std::lock_guard<std::mutex> lock(s->registry_mu);
        int n = s->agent_count.load(std::memory_order_relaxed);
        for (int i = 0; i < n; ++i) {
            if (s->agents[i].id == agent.id) return;  // registered already
        }
        std::string who = agent_label(agent);
        if (n == detail::kMaxAgents) {
            warning = who + ": more than " + std::to_string(detail::kMaxAgents) + " agents; it is not profiled";
        } else {
            AgentSlot& slot = s->agents[n];
            slot.id = agent.id;
            slot.index = agent.index;
            const PlanAgent* planned = plan_agent(s->config, agent.index);
            if (planned != nullptr && planned->name != agent.name) {
                warning = who + ": the plan's GPU " + std::to_string(agent.index) + " is " + planned->name +
                          "; its dispatches are not profiled";
            } else if (planned == nullptr && plan_has_counters(s->config)) {
                warning = who + " is not in the plan: its dispatches are not profiled";
            } else {
                slot.plan = planned;
            }
            s->agent_count.store(n + 1, std::memory_order_release);
        }
        std::string line;
        records::append_agent(line, agent);
        s->preamble += line;
        detail::write_lines(*s, line);
    }
    if (!warning.empty()) warn(warning);
}

void Core::describe_agent(const AgentInfo& agent) {
    State* s = detail::state();
    if (s == nullptr || !s->active) return;
    std::lock_guard<std::mutex> lock(s->registry_mu);
    std::string line;
    records::append_agent(line, agent);
    s->preamble += line;
    detail::write_lines(*s, line);
}

KernelRef Core::register_kernel(const KernelDesc& desc) {
    KernelRef ref;
    State* s = detail::state();
    if (s == nullptr || !s->active) {
        ref.agent_id = desc.agent_id;
        ref.mangled = desc.mangled_name;
        ref.demangled = demangle(desc.mangled_name);
        ref.truncated = truncate_name(ref.demangled);
        return ref;
    }
    std::string key = std::to_string(desc.agent_id) + "/" + desc.mangled_name;
    std::lock_guard<std::mutex> lock(s->registry_mu);
    auto it = s->kernels.find(key);
    if (it != s->kernels.end()) return it->second;
    ref.kernel_id = s->next_kernel_id++;
    ref.agent_id = desc.agent_id;
    ref.mangled = desc.mangled_name;
    ref.demangled = demangle(desc.mangled_name);
    ref.truncated = truncate_name(ref.demangled);
    s->filter.add_kernel(ref.kernel_id, ref.name(s->config.filter_name));
    s->kernels.emplace(std::move(key), ref);
    // Written before the id is handed out, so the kernel line precedes every dispatch of the kernel.
    std::string line;
    records::append_kernel(line, ref, desc);
    s->preamble += line;
    detail::write_lines(*s, line);
    return ref;
}

bool Core::select(const KernelRef& kernel) {
    t_rotation_pass = kNotReplayed;
    State* s = detail::state();
    if (s == nullptr || !s->active) return false;
    bool selected = kernel.kernel_id != 0 ? s->filter.select(kernel.kernel_id)
                                          // Not registered with core: the regexes alone decide (no iteration count to keep).
                                          : s->filter.name_matches(kernel.name(s->config.filter_name));
    if (selected && s->config.replay_mode == ReplayMode::Rotation) t_rotation_pass = detail::rotate(*s, kernel.agent_id);
    return selected;
}

uint64_t Core::selected_rotation_pass() const { return t_rotation_pass; }

namespace detail {

uint64_t rotate(State& s, uint64_t agent_id) {
    // The slot's plan is read-only after registration; the count is the agent's alone.
    AgentSlot* a = const_cast<AgentSlot*>(agent_by_id(s, agent_id));
    if (a == nullptr || a->plan == nullptr || a->plan->passes.empty()) return kNotReplayed;
    uint64_t k = a->rotation_count.fetch_add(1, std::memory_order_relaxed);
    return (k / s.config.group_interval) % a->plan->passes.size();
}

}  // namespace detail

const std::vector<PlanPass>& Core::passes_for_agent(int agent_index) const {
    // Never destroyed: threads may still ask while exit() runs static destructors.
    static const std::vector<PlanPass>* none = new std::vector<PlanPass>();
    State* s = detail::state();
    if (s == nullptr || !s->active) return *none;
    const AgentSlot* a = detail::agent_by_index(*s, agent_index);
    return (a != nullptr && a->plan != nullptr) ? a->plan->passes : *none;
}

const std::vector<PlanCounter>* Core::counters_for_current_pass(int agent_index) const {
    State* s = detail::state();
    if (s == nullptr || !s->active) return nullptr;
    const std::vector<PlanPass>& passes = passes_for_agent(agent_index);
    if (passes.empty()) return nullptr;
    int effective = 0;
    if (gorocprof_context_is_effective(s->counter_context, &effective) != GOROCPROF_STATUS_SUCCESS || !effective)
        return nullptr;
    uint64_t pass = 0;
    switch (s->config.replay_mode) {
        case ReplayMode::Kernel: {
            uint64_t published = published_pass();
            pass = published == UINT64_MAX ? 0 : published;
            break;
        }
        case ReplayMode::Application: pass = static_cast<uint64_t>(s->config.application_pass); break;
        case ReplayMode::Rotation: {
            uint64_t open = detail::open_rotation_pass();
            pass = open != kNotReplayed ? open : t_rotation_pass;
            break;
        }
        case ReplayMode::None: pass = 0; break;
    }
    return pass < passes.size() ? &passes[pass].counters : nullptr;
}

}  // namespace gorocprof::core
