// Failure injection for tests: GOROCPROF_SIM_FAIL names points (snapshot, restore, backup_device,
// backup_host) that must fail, on every hit or from/at the N-th hit, so a test can drive the decline
// and fatal-restore paths of a backend without a real out-of-memory condition.
#include "sim_internal.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace gorocprof::sim {
namespace {

struct Rule {
    uint64_t nth = 0;      // 0: every hit
    bool and_later = false;
};

struct FailPoints {
    std::mutex mutex;
    bool loaded = false;
    std::map<std::string, Rule> rules;
    std::map<std::string, uint64_t> hits;
};

FailPoints& points() {
    static FailPoints* p = new FailPoints;  // never destroyed: hooks may run during exit
    return *p;
}

// Replaces the rules; returns false with *error for a malformed entry (the rules are then empty).
bool parse_spec(const std::string& spec, std::map<std::string, Rule>* rules, std::string* error) {
    rules->clear();
    size_t pos = 0;
    while (pos <= spec.size() && !spec.empty()) {
        size_t comma = spec.find(',', pos);
        std::string item = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        Rule r;
        size_t at = item.find('@');
        std::string name = item.substr(0, at);
        if (at != std::string::npos) {
            std::string n = item.substr(at + 1);
            if (!n.empty() && n.back() == '+') {
                r.and_later = true;
                n.pop_back();
            }
            char* end = nullptr;
            r.nth = std::strtoull(n.c_str(), &end, 10);
            if (n.empty() || *end != '\0' || r.nth == 0) {
                *error = "'" + item + "' is not point, point@N or point@N+ (N >= 1)";
                rules->clear();
                return false;
            }
        }
        if (name.empty()) {
            *error = "empty point name in '" + spec + "'";
            rules->clear();
            return false;
        }
        (*rules)[name] = r;
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return true;
}

}  // namespace
}  // namespace gorocprof::sim

using namespace gorocprof::sim;

extern "C" {

int simToolFailPoint(const char* point) {
    if (!point) return 0;
    FailPoints& p = points();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (!p.loaded) {
        p.loaded = true;
        const char* env = std::getenv("GOROCPROF_SIM_FAIL");
        std::string error;
        if (env && !parse_spec(env, &p.rules, &error))
            std::fprintf(stderr, "gorocprof-sim: GOROCPROF_SIM_FAIL: %s; no failure is injected\n", error.c_str());
    }
    auto it = p.rules.find(point);
    if (it == p.rules.end()) return 0;
    uint64_t hit = ++p.hits[point];
    const Rule& r = it->second;
    if (r.nth == 0) return 1;
    return (hit == r.nth || (r.and_later && hit > r.nth)) ? 1 : 0;
}

simError_t simToolSetFailSpec(const char* spec) {
    FailPoints& p = points();
    std::lock_guard<std::mutex> lock(p.mutex);
    p.loaded = true;
    p.hits.clear();
    std::string error;
    if (!parse_spec(spec ? spec : "", &p.rules, &error))
        return fail(simErrorInvalidValue, "simToolSetFailSpec", error);
    return simSuccess;
}

}  // extern "C"
