// Replays a fuzz corpus through LLVMFuzzerTestOneInput, so that every compiler runs the plan parser's
// fuzz target on the committed inputs (libFuzzer itself needs clang): each argument is a file or a
// directory of files.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

bool run_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "replay_corpus: cannot read %s\n", path.c_str());
        return false;
    }
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    size_t inputs = 0;
    for (int i = 1; i < argc; ++i) {
        std::error_code ec;
        std::vector<std::filesystem::path> files;
        if (std::filesystem::is_directory(argv[i], ec)) {
            for (const auto& e : std::filesystem::directory_iterator(argv[i], ec))
                if (e.is_regular_file()) files.push_back(e.path());
        } else {
            files.push_back(argv[i]);
        }
        if (ec) {
            std::fprintf(stderr, "replay_corpus: %s: %s\n", argv[i], ec.message().c_str());
            return 1;
        }
        for (const auto& f : files) {
            if (!run_file(f)) return 1;
            ++inputs;
        }
    }
    if (inputs == 0) {
        std::fprintf(stderr, "replay_corpus: no inputs\n");
        return 1;
    }
    std::printf("replay_corpus: %zu inputs\n", inputs);
    return 0;
}
