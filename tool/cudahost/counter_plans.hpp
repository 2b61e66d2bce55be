// What the fake CUPTI's range tests share: a plan of counter groups by name, and the value a metric reads on
// a kernel in the fake (distinct per metric and kernel, so a pass that read another kernel's range or another
// metric shows).
#pragma once

#include "core.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace counter_plans {

inline std::vector<gorocprof::core::PlanPass> plan(const std::vector<std::vector<std::string>>& groups) {
    std::vector<gorocprof::core::PlanPass> out;
    for (const auto& g : groups) {
        gorocprof::core::PlanPass p;
        p.group = static_cast<int>(out.size());
        for (const std::string& n : g) p.counters.push_back(gorocprof::core::PlanCounter{n, "", 0});
        out.push_back(std::move(p));
    }
    return out;
}

// FNV-1a of the name, times 1000, plus the kernel's id.
inline double value(const std::string& metric, size_t id) {
    uint32_t h = 2166136261u;
    for (char c : metric) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
    return static_cast<double>(h % 100000) * 1000 + static_cast<double>(id);
}

}  // namespace counter_plans
