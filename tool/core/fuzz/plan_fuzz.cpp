// The plan parser against any text: it must never crash or read out of bounds (the sanitizer builds
// replay the corpus too), and a plan it refuses is an error that names the file.
#include <core.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    gorocprof::core::Config config;
    std::string error;
    if (!gorocprof::core::parse_plan(text, "/fuzz/plan.json", &config, &error) &&
        error.find("/fuzz/plan.json") == std::string::npos) {
        std::fprintf(stderr, "plan refused with an error that does not name the file: %s\n", error.c_str());
        std::abort();
    }
    return 0;
}
