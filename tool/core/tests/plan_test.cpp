#include "check.hpp"
#include "files.hpp"

#include <core.hpp>

#include <cstdlib>

using namespace gorocprof::core;

namespace {

const char* kGoodPlan = R"({
  "version": 1,
  "backend": "sim",
  "replay_mode": "kernel",
  "application_pass": -1,
  "kernel_trace": true,
  "future_field": {"ignored": [1, 2]},
  "filters": {
    "include_regex": "axpy",
    "exclude_regex": "",
    "name_kind": "truncated",
    "iteration_ranges": [[1, 3], [5, 8]]
  },
  "agents": [
    {"index": 0, "name": "gfx90a", "passes": [
      {"group": 0, "counters": [{"name": "SQ_WAVES", "block": "SQ", "event": 4}]},
      {"group": 1, "counters": [{"name": "SQ_INSTS_VALU", "block": "SQ", "event": 26},
                                {"name": "GRBM_COUNT", "block": "GRBM", "event": 0}]}
    ]},
    {"index": 1, "name": "gfx942", "passes": []}
  ]
})";

std::string plan_error(const std::string& text) {
    Config c;
    std::string error;
    if (parse_plan(text, "/x/plan.json", &c, &error)) return "(parsed)";
    return error;
}

// Sets the environment for load_config; run_dir gets plan.json when `plan` is not null.
std::string set_env(const char* plan, const char* contract = "1") {
    std::string dir = check::temp_dir();
    if (plan != nullptr) check::write_file(dir + "/plan.json", plan);
    ::setenv("GOROCPROF_RUN_DIR", dir.c_str(), 1);
    ::unsetenv("GOROCPROF_PLAN");
    ::unsetenv("GOROCPROF_LOG_LEVEL");
    if (contract != nullptr) {
        ::setenv("GOROCPROF_CONTRACT", contract, 1);
    } else {
        ::unsetenv("GOROCPROF_CONTRACT");
    }
    return dir;
}

}  // namespace

TEST_CASE(plan_good) {
    Config c;
    std::string error;
    CHECK(parse_plan(kGoodPlan, "/x/plan.json", &c, &error));
    CHECK_EQ(error, std::string());
    CHECK_EQ(c.backend, std::string("sim"));
    CHECK(c.replay_mode == ReplayMode::Kernel);
    CHECK_EQ(c.application_pass, -1);
    CHECK(c.kernel_trace);
    CHECK_EQ(c.include_regex, std::string("axpy"));
    CHECK(c.filter_name == KernelNameKind::Truncated);
    CHECK((c.iteration_ranges == std::vector<std::pair<int64_t, int64_t>>{{1, 3}, {5, 8}}));
    CHECK_EQ(c.agents.size(), size_t{2});
    CHECK_EQ(c.agents[0].name, std::string("gfx90a"));
    CHECK_EQ(c.agents[0].passes.size(), size_t{2});
    CHECK_EQ(c.agents[0].passes[1].group, 1);
    CHECK_EQ(c.agents[0].passes[1].counters[1].name, std::string("GRBM_COUNT"));
    CHECK_EQ(c.agents[0].passes[1].counters[0].event, 26);
    CHECK_EQ(c.agents[1].index, 1);
    CHECK(c.agents[1].passes.empty());
}

TEST_CASE(plan_minimal_defaults) {
    Config c;
    std::string error;
    CHECK(parse_plan(R"({"version":1,"backend":"cuda"})", "/x/plan.json", &c, &error));
    CHECK(c.replay_mode == ReplayMode::None);
    CHECK(!c.kernel_trace);
    CHECK(c.filter_name == KernelNameKind::Demangled);
    CHECK(c.agents.empty());
    CHECK(c.iteration_ranges.empty());
    CHECK_EQ(c.group_interval, uint64_t{1});
}

TEST_CASE(plan_rotation) {
    Config c;
    std::string error;
    CHECK(parse_plan(R"({"version": 1, "backend": "sim", "replay_mode": "rotation", "group_interval": 4})", "/x/plan.json",
                     &c, &error));
    CHECK_EQ(error, std::string());
    CHECK(c.replay_mode == ReplayMode::Rotation);
    CHECK_EQ(c.group_interval, uint64_t{4});
}

TEST_CASE(plan_errors_name_file_and_reason) {
    CHECK_EQ(plan_error(R"({"version": 2, "backend": "sim"})"),
              std::string("plan /x/plan.json: version 2, this tool library speaks contract 1"));
    CHECK_EQ(plan_error(R"({"backend": "sim"})"), std::string("plan /x/plan.json: has no \"version\""));
    CHECK_EQ(plan_error("{\"version\": 1,\n \"backend\": \"sim\",}"),
              std::string("plan /x/plan.json: not valid JSON: line 2, column 19: trailing comma in an object"));
    CHECK_EQ(plan_error("[1]"), std::string("plan /x/plan.json: is an array, expected an object"));
    CHECK_EQ(plan_error(R"({"version": 1, "backend": "sim", "replay_mode": "sometimes"})"),
              std::string("plan /x/plan.json: replay_mode \"sometimes\" is not kernel, application, rotation or none"));
    CHECK_EQ(plan_error(R"({"version": 1, "backend": "sim", "replay_mode": "rotation", "group_interval": 0})"),
              std::string("plan /x/plan.json: group_interval: 0 is out of range [1, 9223372036854775807]"));
    CHECK_EQ(plan_error(R"({"version": 1, "backend": "sim", "replay_mode": "application"})"),
              std::string("plan /x/plan.json: replay_mode application needs application_pass >= 0, got -1"));
    CHECK_EQ(plan_error(R"({"version": 1, "backend": "sim", "kernel_trace": 1})"),
              std::string("plan /x/plan.json: kernel_trace: is a number, expected a boolean"));
    CHECK_EQ(plan_error(R"({"version": 1, "backend": "sim", "filters": {"include_regex": "(a"}})")
                  .rfind("plan /x/plan.json: filters.include_regex \"(a\": ", 0),
              size_t{0});
    CHECK_EQ(plan_error(R"({"version": 1, "backend": "sim", "filters": {"iteration_ranges": [[3, 1]]}})"),
              std::string("plan /x/plan.json: filters.iteration_ranges[0][1]: 1 is out of range [3, 9223372036854775807]"));
    CHECK_EQ(plan_error(R"({"version": 1, "backend": "sim", "filters": {"name_kind": "symbol"}})"),
              std::string("plan /x/plan.json: filters.name_kind: \"symbol\" is not \"demangled\", \"truncated\" or \"mangled\""));
    CHECK_EQ(plan_error(R"({"version": 1, "backend": "sim", "agents": [{"index": 0, "name": "a",
                "passes": [{"group": 0, "counters": [{"block": "SQ"}]}]}]})"),
              std::string("plan /x/plan.json: agents[0].passes[0].counters[0]: has no \"name\""));
    CHECK_EQ(plan_error(R"({"version": 1, "backend": "sim", "agents": [{"index": 0, "name": "a"},
                {"index": 0, "name": "b"}]})"),
              std::string("plan /x/plan.json: agents[1]: index 0 appears twice"));
    CHECK_EQ(plan_error(R"({"version": 1.5, "backend": "sim"})"),
              std::string("plan /x/plan.json: \"version\" is the number 1.5, expected an integer"));
}

TEST_CASE(load_config_reads_environment_and_plan) {
    std::string dir = set_env(kGoodPlan);
    ::setenv("GOROCPROF_LOG_LEVEL", "trace", 1);
    Config c;
    std::string error;
    CHECK(load_config(&c, &error));
    CHECK_EQ(error, std::string());
    CHECK_EQ(c.run_dir, dir);
    CHECK_EQ(c.plan_path, dir + "/plan.json");
    CHECK_EQ(c.contract_version, 1);
    CHECK(c.log_level == LogLevel::Trace);
    CHECK_EQ(c.agents.size(), size_t{2});

    // GOROCPROF_PLAN wins over the run directory's plan.json.
    std::string other = check::temp_dir() + "/other.json";
    check::write_file(other, R"({"version":1,"backend":"cuda"})");
    ::setenv("GOROCPROF_PLAN", other.c_str(), 1);
    CHECK(load_config(&c, &error));
    CHECK_EQ(c.backend, std::string("cuda"));
    CHECK_EQ(c.run_dir, dir);
}

TEST_CASE(load_config_missing_plan) {
    std::string dir = set_env(nullptr);
    Config c;
    std::string error;
    CHECK(!load_config(&c, &error));
    CHECK_EQ(error, "plan " + dir + "/plan.json: No such file or directory");
    CHECK_EQ(c.run_dir, dir);  // known, so that the caller can still write a fatal record
}

TEST_CASE(load_config_bad_plan_names_file) {
    std::string dir = set_env("{\"version\": 1, \"backend\": ");
    Config c;
    std::string error;
    CHECK(!load_config(&c, &error));
    CHECK_EQ(error, "plan " + dir + "/plan.json: not valid JSON: line 1, column 27: unexpected end of input, expected a value");
    set_env(R"({"version": 7, "backend": "sim"})");
    CHECK(!load_config(&c, &error));
    CHECK(error.find("/plan.json: version 7, this tool library speaks contract 1") != std::string::npos);
}

TEST_CASE(load_config_environment_errors) {
    Config c;
    std::string error;
    set_env(kGoodPlan, nullptr);
    CHECK(!load_config(&c, &error));
    CHECK_EQ(error, std::string("GOROCPROF_CONTRACT is not set"));
    set_env(kGoodPlan, "2");
    CHECK(!load_config(&c, &error));
    CHECK_EQ(error, std::string("GOROCPROF_CONTRACT=2: this tool library speaks contract 1"));
    set_env(kGoodPlan, "one");
    CHECK(!load_config(&c, &error));
    CHECK_EQ(error, std::string("GOROCPROF_CONTRACT=one: not a number"));
    set_env(kGoodPlan);
    ::setenv("GOROCPROF_LOG_LEVEL", "loud", 1);
    CHECK(!load_config(&c, &error));
    CHECK_EQ(error, std::string("GOROCPROF_LOG_LEVEL=loud: expected error, warning, info or trace"));
    set_env(kGoodPlan);
    ::setenv("GOROCPROF_RUN_DIR", "relative/dir", 1);
    CHECK(!load_config(&c, &error));
    CHECK_EQ(error, std::string("GOROCPROF_RUN_DIR=relative/dir: not an absolute path"));
    ::unsetenv("GOROCPROF_RUN_DIR");
    CHECK(!load_config(&c, &error));
    CHECK_EQ(error, std::string("GOROCPROF_RUN_DIR is not set"));
}
