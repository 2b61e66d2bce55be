// Reads the environment contract and the plan file (docs/record-format.md §1-2) into a Config. Every
// error names the variable or the file and what is wrong with it.
#include "core.hpp"
#include "filter.hpp"
#include "json.hpp"
#include "trace.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gorocprof::core {
namespace {

using json::Value;

// Field access with messages that say where in the plan the problem is.
class PlanReader {
public:
    explicit PlanReader(std::string* error) : error_(error) {}

    bool fail(const std::string& where, const std::string& what) {
        *error_ = where + ": " + what;
        return false;
    }

    bool fail_with(const std::string& message) {
        *error_ = message;
        return false;
    }

    bool expect(const Value* v, Value::Kind kind, const std::string& where) {
        if (v->kind() != kind)
            return fail(where, std::string("is ") + Value::kind_name(v->kind()) + ", expected " + Value::kind_name(kind));
        return true;
    }

    bool integer(const Value* v, const std::string& where, int64_t lo, int64_t hi, int64_t* out) {
        if (!v->is_integer()) return fail(where, std::string("is ") + describe(*v) + ", expected an integer");
        if (v->as_int() < lo || v->as_int() > hi)
            return fail(where, std::to_string(v->as_int()) + " is out of range [" + std::to_string(lo) + ", " +
                                   std::to_string(hi) + "]");
        *out = v->as_int();
        return true;
    }

    bool string(const Value* v, const std::string& where, std::string* out) {
        if (!expect(v, Value::Kind::String, where)) return false;
        *out = v->as_string();
        return true;
    }

    static std::string describe(const Value& v) {
        if (v.is_number()) {
            std::string n;
            json::append_double(n, v.as_double());
            return "the number " + n;
        }
        return Value::kind_name(v.kind());
    }

private:
    std::string* error_;
};

bool read_filters(const Value& f, PlanReader& r, Config* out) {
    if (!r.expect(&f, Value::Kind::Object, "filters")) return false;
    if (const Value* v = f.find("include_regex")) {
        if (!r.string(v, "filters.include_regex", &out->include_regex)) return false;
    }
    if (const Value* v = f.find("exclude_regex")) {
        if (!r.string(v, "filters.exclude_regex", &out->exclude_regex)) return false;
    }
    if (const Value* v = f.find("name_kind")) {
        std::string kind;
        if (!r.string(v, "filters.name_kind", &kind)) return false;
        if (kind == "truncated") out->filter_name = KernelNameKind::Truncated;
        else if (kind == "mangled") out->filter_name = KernelNameKind::Mangled;
        else if (kind == "demangled" || kind.empty()) out->filter_name = KernelNameKind::Demangled;
        else return r.fail("filters.name_kind", "\"" + kind + "\" is not \"demangled\", \"truncated\" or \"mangled\"");
    }
    if (const Value* v = f.find("iteration_ranges"); v != nullptr && !v->is_null()) {
        if (!r.expect(v, Value::Kind::Array, "filters.iteration_ranges")) return false;
        for (size_t i = 0; i < v->items().size(); ++i) {
            const Value& pair = v->items()[i];
            std::string where = "filters.iteration_ranges[" + std::to_string(i) + "]";
            if (!pair.is_array() || pair.items().size() != 2) return r.fail(where, "expected [first, last]");
            int64_t lo, hi;
            if (!r.integer(&pair.items()[0], where + "[0]", 1, INT64_MAX, &lo)) return false;
            if (!r.integer(&pair.items()[1], where + "[1]", lo, INT64_MAX, &hi)) return false;
            out->iteration_ranges.emplace_back(lo, hi);
        }
    }
    // The regexes must compile here, so that a bad one is a configuration error and not a silent
    // "profile nothing".
    KernelFilter probe;
    std::string error;
    if (!probe.configure(out->include_regex, out->exclude_regex, out->iteration_ranges, &error))
        return r.fail_with(error);
    return true;
}

bool read_agent(const Value& a, size_t i, PlanReader& r, PlanAgent* out) {
    std::string where = "agents[" + std::to_string(i) + "]";
    if (!r.expect(&a, Value::Kind::Object, where)) return false;
    const Value* index = a.find("index");
    if (index == nullptr) return r.fail(where, "has no \"index\"");
    int64_t idx;
    if (!r.integer(index, where + ".index", 0, 1 << 20, &idx)) return false;
    out->index = static_cast<int>(idx);
    const Value* name = a.find("name");
    if (name == nullptr) return r.fail(where, "has no \"name\"");
    if (!r.string(name, where + ".name", &out->name)) return false;
    const Value* passes = a.find("passes");
    if (passes == nullptr || passes->is_null()) return true;
    if (!r.expect(passes, Value::Kind::Array, where + ".passes")) return false;
    for (size_t p = 0; p < passes->items().size(); ++p) {
        const Value& pv = passes->items()[p];
        std::string pw = where + ".passes[" + std::to_string(p) + "]";
        if (!r.expect(&pv, Value::Kind::Object, pw)) return false;
        PlanPass pass;
        if (const Value* g = pv.find("group")) {
            int64_t group;
            if (!r.integer(g, pw + ".group", 0, INT32_MAX, &group)) return false;
            pass.group = static_cast<int>(group);
        }
        if (const Value* cs = pv.find("counters"); cs != nullptr && !cs->is_null()) {
            if (!r.expect(cs, Value::Kind::Array, pw + ".counters")) return false;
            for (size_t c = 0; c < cs->items().size(); ++c) {
                const Value& cv = cs->items()[c];
                std::string cw = pw + ".counters[" + std::to_string(c) + "]";
                if (!r.expect(&cv, Value::Kind::Object, cw)) return false;
                PlanCounter counter;
                const Value* n = cv.find("name");
                if (n == nullptr) return r.fail(cw, "has no \"name\"");
                if (!r.string(n, cw + ".name", &counter.name)) return false;
                if (counter.name.empty()) return r.fail(cw + ".name", "is empty");
                if (const Value* b = cv.find("block")) {
                    if (!r.string(b, cw + ".block", &counter.block)) return false;
                }
                if (const Value* e = cv.find("event")) {
                    int64_t event;
                    if (!r.integer(e, cw + ".event", INT32_MIN, INT32_MAX, &event)) return false;
                    counter.event = static_cast<int>(event);
                }
                pass.counters.push_back(std::move(counter));
            }
        }
        out->passes.push_back(std::move(pass));
    }
    return true;
}

bool read_file(const std::string& path, std::string* text, std::string* error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        *error = std::strerror(errno);
        return false;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) {
        *error = "read failed";
        return false;
    }
    *text = ss.str();
    return true;
}

const char* getenv_nonempty(const char* name) {
    const char* v = std::getenv(name);
    return (v != nullptr && v[0] != '\0') ? v : nullptr;
}

}  // namespace

bool parse_plan(const std::string& text, const std::string& path, Config* out, std::string* error) {
    std::string detail;
    auto fail = [&](const std::string& reason) {
        if (error) *error = "plan " + path + ": " + reason;
        return false;
    };
    Value doc;
    if (!json::parse(text, &doc, &detail)) return fail("not valid JSON: " + detail);
    PlanReader r(&detail);
    if (!doc.is_object()) return fail(std::string("is ") + Value::kind_name(doc.kind()) + ", expected an object");

    // The version first: a plan of another contract may differ in everything else.
    const Value* version = doc.find("version");
    if (version == nullptr) return fail("has no \"version\"");
    if (!version->is_integer()) return fail("\"version\" is " + PlanReader::describe(*version) + ", expected an integer");
    if (version->as_int() != kContractVersion)
        return fail("version " + std::to_string(version->as_int()) + ", this tool library speaks contract " +
                    std::to_string(kContractVersion));

    const Value* backend = doc.find("backend");
    if (backend == nullptr) return fail("has no \"backend\"");
    if (!r.string(backend, "backend", &out->backend)) return fail(detail);

    const Value* mode = doc.find("replay_mode");
    std::string mode_name = "none";
    if (mode != nullptr && !r.string(mode, "replay_mode", &mode_name)) return fail(detail);
    if (mode_name == "kernel") out->replay_mode = ReplayMode::Kernel;
    else if (mode_name == "application") out->replay_mode = ReplayMode::Application;
    else if (mode_name == "none") out->replay_mode = ReplayMode::None;
    else if (mode_name == "rotation") out->replay_mode = ReplayMode::Rotation;
    else return fail("replay_mode \"" + mode_name + "\" is not kernel, application, rotation or none");

    out->application_pass = -1;
    if (const Value* ap = doc.find("application_pass")) {
        int64_t pass;
        if (!r.integer(ap, "application_pass", -1, INT32_MAX, &pass)) return fail(detail);
        out->application_pass = static_cast<int>(pass);
    }
    if (out->replay_mode == ReplayMode::Application && out->application_pass < 0)
        return fail("replay_mode application needs application_pass >= 0, got " + std::to_string(out->application_pass));

    out->group_interval = 1;
    if (const Value* gi = doc.find("group_interval")) {
        int64_t interval;
        if (!r.integer(gi, "group_interval", 1, INT64_MAX, &interval)) return fail(detail);
        out->group_interval = static_cast<uint64_t>(interval);
    }

    if (const Value* kt = doc.find("kernel_trace")) {
        if (!r.expect(kt, Value::Kind::Bool, "kernel_trace")) return fail(detail);
        out->kernel_trace = kt->as_bool();
    }
    if (const Value* td = doc.find("trace_domains"); td != nullptr && !td->is_null()) {
        if (!r.expect(td, Value::Kind::Array, "trace_domains")) return fail(detail);
        for (size_t i = 0; i < td->items().size(); ++i) {
            std::string where = "trace_domains[" + std::to_string(i) + "]", name;
            if (!r.string(&td->items()[i], where, &name)) return fail(detail);
            trace::Domain d;
            if (!trace::parse_domain(name, &d)) return fail(where + ": \"" + name + "\" is not a domain this tool library traces");
            out->trace_domains.push_back(name);
        }
    }
    if (const Value* f = doc.find("filters"); f != nullptr && !f->is_null()) {
        if (!read_filters(*f, r, out)) return fail(detail);
    }
    const Value* agents = doc.find("agents");
    if (agents != nullptr && !agents->is_null()) {
        if (!r.expect(agents, Value::Kind::Array, "agents")) return fail(detail);
        for (size_t i = 0; i < agents->items().size(); ++i) {
            PlanAgent agent;
            if (!read_agent(agents->items()[i], i, r, &agent)) return fail(detail);
            for (const PlanAgent& seen : out->agents) {
                if (seen.index == agent.index)
                    return fail("agents[" + std::to_string(i) + "]: index " + std::to_string(agent.index) +
                                " appears twice");
            }
            out->agents.push_back(std::move(agent));
        }
    }
    return true;
}

bool load_config(Config* out, std::string* error) {
    *out = Config{};
    auto fail = [&](const std::string& reason) {
        if (error) *error = reason;
        return false;
    };

    if (const char* level = getenv_nonempty("GOROCPROF_LOG_LEVEL")) {
        std::string l = level;
        if (l == "error") out->log_level = LogLevel::Error;
        else if (l == "warning") out->log_level = LogLevel::Warning;
        else if (l == "info") out->log_level = LogLevel::Info;
        else if (l == "trace") out->log_level = LogLevel::Trace;
        else return fail("GOROCPROF_LOG_LEVEL=" + l + ": expected error, warning, info or trace");
    }

    // The run directory comes before the contract check so that a caller can still record why it failed.
    const char* run_dir = getenv_nonempty("GOROCPROF_RUN_DIR");
    if (run_dir == nullptr) return fail("GOROCPROF_RUN_DIR is not set");
    if (run_dir[0] != '/') return fail(std::string("GOROCPROF_RUN_DIR=") + run_dir + ": not an absolute path");
    out->run_dir = run_dir;

    const char* contract = getenv_nonempty("GOROCPROF_CONTRACT");
    if (contract == nullptr) return fail("GOROCPROF_CONTRACT is not set");
    char* end = nullptr;
    errno = 0;
    long v = std::strtol(contract, &end, 10);
    if (errno != 0 || end == contract || *end != '\0')
        return fail(std::string("GOROCPROF_CONTRACT=") + contract + ": not a number");
    out->contract_version = static_cast<int>(v);
    if (v != kContractVersion)
        return fail(std::string("GOROCPROF_CONTRACT=") + contract + ": this tool library speaks contract " +
                    std::to_string(kContractVersion));

    const char* plan = getenv_nonempty("GOROCPROF_PLAN");
    out->plan_path = plan != nullptr ? plan : out->run_dir + "/plan.json";

    std::string text, reason;
    if (!read_file(out->plan_path, &text, &reason)) return fail("plan " + out->plan_path + ": " + reason);
    // parse_plan fills the plan's fields; the environment's fields above stay.
    return parse_plan(text, out->plan_path, out, error);
}

}  // namespace gorocprof::core
