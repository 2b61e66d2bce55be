// sim-re2clash: an application that carries its own RE2-named code (as programs linking grpc or
// TensorFlow carry their RE2), exported from the executable: re2::RE2::PartialMatchN here says every
// text matches. It runs 4 kernels and checks that its own function is the one it calls. The tool's
// kernel-name filter must neither call this function nor lend the app its own RE2: a filter that
// matches no kernel (`--kernel-include-regex '^nomatch$'`) selects no dispatch.
#include "common.hpp"

#include <cstdio>

namespace re2 {
class StringPiece {
public:
    const char* data_ = nullptr;
    long size_ = 0;
};
class RE2 {
public:
    class Arg;
    static bool PartialMatchN(const StringPiece& text, const RE2& re, const Arg* const args[], int n);
};
// The app's own: every text matches. Exported (the executable is linked with its symbols dynamic).
__attribute__((visibility("default"), noinline)) bool RE2::PartialMatchN(const StringPiece&, const RE2&,
                                                                           const Arg* const[], int) {
    return true;
}
}  // namespace re2

using namespace examples;

int main() {
    g_app = "sim-re2clash";
    re2::StringPiece text;
    const re2::RE2* self = nullptr;
    // Its own RE2 answers as it was written to, whatever library the tool brought in.
    bool own = re2::RE2::PartialMatchN(text, *self, nullptr, 0);
    if (!own) {
        std::fprintf(stderr, "sim-re2clash: FAIL: its RE2 function is not its own\n");
        return 1;
    }
    if (!increment_and_check(256, 4)) return 1;
    std::printf("sim-re2clash: PASS\n");
    return 0;
}
