#include "app_run.hpp"

#include "check.hpp"
#include "files.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

using gorocprof::json::Value;

namespace check {

AppRun run_app(const std::string& plan, std::vector<std::string> argv, const std::vector<std::string>& env) {
    AppRun r;
    r.dir = temp_dir();
    write_file(r.dir + "/plan.json", plan);
    std::string out_path = r.dir + "/output.txt";
    std::vector<std::string> owned = env;  // putenv keeps the pointers
    pid_t child = ::fork();
    if (child == 0) {
        ::unsetenv("GOROCPROF_PLAN");
        ::unsetenv("GOROCPROF_SIM_AGENTS");
        ::unsetenv("GOROCPROF_SIM_FAIL");
        ::setenv("GOROCPROF_RUN_DIR", r.dir.c_str(), 1);
        ::setenv("GOROCPROF_CONTRACT", "1", 1);
        ::setenv("GOROCPROF_LOG_LEVEL", "warning", 1);
        for (std::string& e : owned) ::putenv(const_cast<char*>(e.c_str()));
        int fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        std::vector<char*> args;
        for (std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        std::perror("execv");
        std::_Exit(127);
    }
    ::waitpid(child, &r.status, 0);
    r.pid = child;
    r.out = read_file(out_path);
    r.raw = read_file(r.dir + "/records/" + std::to_string(child) + ".ndjson");
    for (const std::string& line : lines_of(r.raw)) {
        Value v;
        std::string error;
        if (!gorocprof::json::parse(line, &v, &error)) {
            fail(__FILE__, __LINE__, "record line does not parse (" + error + "): " + line);
            continue;
        }
        r.records.push_back(std::move(v));
    }
    return r;
}

bool exited_ok(const AppRun& r) {
    bool ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
    if (!ok) std::fprintf(stderr, "app status %d, output:\n%s\n", r.status, r.out.c_str());
    return ok;
}

std::string type_of(const Value& v) {
    const Value* t = v.find("t");
    return t != nullptr && t->is_string() ? t->as_string() : "";
}

int64_t num(const Value& v, const char* key) {
    const Value* f = v.find(key);
    return f != nullptr && f->is_integer() ? f->as_int() : -999;
}

std::vector<const Value*> of_type(const AppRun& r, const std::string& t) {
    std::vector<const Value*> out;
    for (const Value& v : r.records)
        if (type_of(v) == t) out.push_back(&v);
    return out;
}

std::string counter_names(const Value& d) {
    std::string s;
    const Value* cs = d.find("counters");
    if (cs == nullptr) return s;
    for (const Value& c : cs->items()) s += (s.empty() ? "" : ",") + c.find("name")->as_string();
    return s;
}

std::string values_of(const Value& d, const std::string& name) {
    const Value* cs = d.find("counters");
    if (cs == nullptr) return "(none)";
    for (const Value& c : cs->items()) {
        if (c.find("name")->as_string() != name) continue;
        std::string s;
        for (const Value& v : c.find("values")->items()) {
            std::string one;
            if (v.is_null()) {
                one = "null";
            } else {
                gorocprof::json::append_double(one, v.as_double());
            }
            s += (s.empty() ? "" : ",") + one;
        }
        return s;
    }
    return "(none)";
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    return s;
}

}  // namespace check
