// End-to-end test helpers: run an app with a tool injected, a plan written here, and read the record
// file back (docs/record-format.md), plus accessors for the record lines.
#pragma once

#include <json.hpp>

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace check {

struct AppRun {
    int status = -1;  // waitpid status
    std::string out;  // stdout + stderr
    std::string dir;  // the run directory (plan.json, records/)
    pid_t pid = 0;
    std::vector<gorocprof::json::Value> records;
    std::string raw;  // the record file as written
};

// Runs argv in a clean profiling environment (GOROCPROF_RUN_DIR, contract 1, log level warning, no
// GOROCPROF_PLAN/GOROCPROF_SIM_AGENTS/GOROCPROF_SIM_FAIL) plus `env` (NAME=VALUE each).
AppRun run_app(const std::string& plan, std::vector<std::string> argv, const std::vector<std::string>& env);

// True for exit status 0; prints the status and output otherwise.
bool exited_ok(const AppRun& r);

std::string type_of(const gorocprof::json::Value& v);
int64_t num(const gorocprof::json::Value& v, const char* key);  // -999 when absent
std::vector<const gorocprof::json::Value*> of_type(const AppRun& r, const std::string& t);
// "A,B" of a dispatch line's counters; "" without counters.
std::string counter_names(const gorocprof::json::Value& dispatch);
// The values of one counter as text ("16,16,null"); "(none)" when absent.
std::string values_of(const gorocprof::json::Value& dispatch, const std::string& name);

// Every occurrence of `from` replaced by `to`.
std::string replace_all(std::string s, const std::string& from, const std::string& to);

}  // namespace check
