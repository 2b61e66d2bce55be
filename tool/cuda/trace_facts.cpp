#include "trace_facts.hpp"

#include <cctype>

namespace gorocprof::cuda::tracing {

std::string runtime_api_name(std::string_view cupti_name) {
    const size_t v = cupti_name.rfind("_v");
    if (v == std::string_view::npos || cupti_name.size() - v - 2 < 4) return std::string(cupti_name);
    for (size_t i = v + 2; i < cupti_name.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(cupti_name[i]))) return std::string(cupti_name);
    return std::string(cupti_name.substr(0, v));
}

std::string cpuinfo_field(std::string_view text, std::string_view key) {
    size_t at = 0;
    while (at < text.size()) {
        size_t eol = text.find('\n', at);
        if (eol == std::string_view::npos) eol = text.size();
        const std::string_view line = text.substr(at, eol - at);
        const size_t colon = line.find(':');
        if (colon != std::string_view::npos) {
            std::string_view name = line.substr(0, colon);
            while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
            if (name == key) {
                size_t v = line.find_first_not_of(" \t", colon + 1);
                return v == std::string_view::npos ? std::string() : std::string(line.substr(v));
            }
        }
        at = eol + 1;
    }
    return std::string();
}

}  // namespace gorocprof::cuda::tracing
