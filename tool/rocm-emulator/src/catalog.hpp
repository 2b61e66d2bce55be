// The emulated SDK's counter definitions: counter_defs.yaml (the SDK's own file format, installed
// under <root>/share/rocprofiler-sdk/) and the per-block register limits that decide whether a group
// fits one pass (block_limits.tsv beside it).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gorocprof::rocmemu {

struct CounterDef {
    std::string name;
    std::string description;
    std::string block;       // base counters
    int event = -1;          // base counters
    std::string expression;  // derived counters
    bool derived() const { return !expression.empty(); }
};

struct ArchCatalog {
    std::string arch;
    std::vector<CounterDef> counters;    // base counters with registers on this arch, and derived ones
    std::map<std::string, int> limits;   // block -> counters one pass can count per block instance
};

// Reads both files of `share_dir`. False with *error naming the file and line.
bool load_definitions(const std::string& share_dir, std::string* error);

// The catalog of an architecture (its own definitions, else its family's, as the SDK falls back);
// nullptr with *error when the definitions know neither.
const ArchCatalog* catalog_for(const std::string& arch, std::string* error);

}  // namespace gorocprof::rocmemu
