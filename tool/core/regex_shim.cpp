// libgorocprof_regex.so: RE2 behind three C functions, for regex.cpp, which loads this library in a
// link-map namespace of its own (dlmopen). RE2 and the C++ runtime it brings are then invisible to
// the profiled application, and an application that carries its own RE2 (grpc, TensorFlow) neither
// sees our copy nor lends us its own. Everything but these functions is hidden.
#include <re2/re2.h>

#include <cstddef>
#include <cstring>
#include <new>
#include <string>

#define GOROCPROF_REGEX_EXPORT extern "C" __attribute__((visibility("default")))

// Compiles pattern; nullptr with the reason in err (cut to errcap bytes) when it is not valid.
GOROCPROF_REGEX_EXPORT void* gorocprof_regex_compile(const char* pattern, size_t n, char* err, size_t errcap) {
    re2::RE2::Options opts;
    opts.set_log_errors(false);
    auto* re = new (std::nothrow) re2::RE2(re2::StringPiece(pattern, n), opts);
    std::string why = re == nullptr ? "out of memory" : re->ok() ? "" : re->error();
    if (why.empty()) return re;
    delete re;
    if (errcap > 0) {
        size_t k = why.size() < errcap - 1 ? why.size() : errcap - 1;
        std::memcpy(err, why.data(), k);
        err[k] = '\0';
    }
    return nullptr;
}

// 1 when the pattern matches somewhere in text, 0 when not.
GOROCPROF_REGEX_EXPORT int gorocprof_regex_partial_match(const void* re, const char* text, size_t n) {
    return re2::RE2::PartialMatch(re2::StringPiece(text, n), *static_cast<const re2::RE2*>(re)) ? 1 : 0;
}

GOROCPROF_REGEX_EXPORT void gorocprof_regex_free(void* re) { delete static_cast<re2::RE2*>(re); }
