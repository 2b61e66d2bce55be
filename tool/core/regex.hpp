// A compiled RE2 pattern, matched through libgorocprof_regex.so (regex_shim.cpp), which is loaded on
// first use in a link-map namespace of its own: neither RE2's symbols nor the C++ runtime it links
// enter the profiled application's namespace (docs/record-format.md, "The tool libraries' own
// symbols"). A run without a regex filter never loads it, nor the RE2 library it needs.
#pragma once

#include <memory>
#include <string>

namespace gorocprof::core {

class Regex {
public:
    // nullptr with *error when the library cannot be loaded (naming it and what it lacks) or the
    // pattern is not valid RE2.
    static std::unique_ptr<Regex> compile(const std::string& pattern, std::string* error);
    ~Regex();
    Regex(const Regex&) = delete;
    Regex& operator=(const Regex&) = delete;

    bool partial_match(const std::string& text) const;

private:
    explicit Regex(void* re) : re_(re) {}
    void* re_;
};

}  // namespace gorocprof::core
