#include "regex.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstddef>
#include <mutex>

namespace gorocprof::core {
namespace {

using CompileFn = void* (*)(const char*, size_t, char*, size_t);
using MatchFn = int (*)(const void*, const char*, size_t);
using FreeFn = void (*)(void*);

struct Library {
    CompileFn compile = nullptr;
    MatchFn match = nullptr;
    FreeFn free = nullptr;
    std::string error;  // why it could not be loaded; empty once loaded
};

constexpr const char* kLibraryName = "libgorocprof_regex.so";

// The library beside the object holding this code (the tool library, installed together), else
// the build tree's (tests linked into executables).
std::string library_path() {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&library_path), &info) != 0 && info.dli_fname != nullptr) {
        std::string self = info.dli_fname;
        size_t slash = self.rfind('/');
        std::string beside = (slash == std::string::npos ? std::string(".") : self.substr(0, slash)) + "/" + kLibraryName;
        if (::access(beside.c_str(), R_OK) == 0) return beside;
    }
#ifdef GOROCPROF_REGEX_BUILD_PATH
    return GOROCPROF_REGEX_BUILD_PATH;
#else
    return kLibraryName;
#endif
}

void* open_isolated(const std::string& path) {
#if defined(GOROCPROF_REGEX_SAME_NAMESPACE)
    // Sanitizer builds: the sanitizers' runtimes do not follow a second namespace.
    return ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
#else
    return ::dlmopen(LM_ID_NEWLM, path.c_str(), RTLD_NOW | RTLD_LOCAL);
#endif
}

const Library& library() {
    static Library lib;
    static std::once_flag once;
    std::call_once(once, [] {
        std::string path = library_path();
        void* h = open_isolated(path);
        if (h == nullptr) {
            const char* why = ::dlerror();
            lib.error = "cannot load " + path + ", the kernel-name filter's RE2: " + (why ? why : "unknown error") +
                        " (it needs RE2's runtime library, libre2.so.9: install libre2-9)";
            return;
        }
        lib.compile = reinterpret_cast<CompileFn>(::dlsym(h, "gorocprof_regex_compile"));
        lib.match = reinterpret_cast<MatchFn>(::dlsym(h, "gorocprof_regex_partial_match"));
        lib.free = reinterpret_cast<FreeFn>(::dlsym(h, "gorocprof_regex_free"));
        if (lib.compile == nullptr || lib.match == nullptr || lib.free == nullptr) {
            lib.compile = nullptr;
            lib.error = path + " lacks the gorocprof_regex_* functions: it is not this gorocprof's";
        }
    });
    return lib;
}

}  // namespace

std::unique_ptr<Regex> Regex::compile(const std::string& pattern, std::string* error) {
    const Library& lib = library();
    if (lib.compile == nullptr) {
        if (error) *error = lib.error;
        return nullptr;
    }
    char why[512] = {};
    void* re = lib.compile(pattern.data(), pattern.size(), why, sizeof why);
    if (re == nullptr) {
        if (error) *error = why;
        return nullptr;
    }
    return std::unique_ptr<Regex>(new Regex(re));
}

Regex::~Regex() { library().free(re_); }

bool Regex::partial_match(const std::string& text) const { return library().match(re_, text.data(), text.size()) != 0; }

}  // namespace gorocprof::core
