#include "comm_kernels.hpp"

#include <dlfcn.h>
#include <execinfo.h>

#include <cctype>

namespace gorocprof::cuda {
namespace {

// The source name a mangled global function starts with (_Z<length><name>...), or the name itself.
std::string_view leading_identifier(std::string_view name) {
    if (name.substr(0, 2) != "_Z") return name;
    size_t i = 2;
    size_t len = 0;
    while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) len = len * 10 + (name[i++] - '0');
    if (len == 0 || i + len > name.size()) return name;
    return name.substr(i, len);
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

bool communication_kernel_name(std::string_view name) {
    const std::string_view id = leading_identifier(name);
    // ncclDevKernelDebug_ shares ncclDevKernel's prefix.
    return starts_with(id, "ncclDevKernel") || starts_with(id, "ncclKernel_");
}

bool communication_library(std::string_view path) {
    const size_t slash = path.rfind('/');
    const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
    return (starts_with(base, "libnccl") || starts_with(base, "librccl")) && base.find(".so") != std::string_view::npos;
}

std::string communication_caller(const void* const* frames, int count,
                                 const std::function<const char*(const void*)>& library_of) {
    for (int i = 0; i < count; ++i) {
        const char* lib = library_of(frames[i]);
        if (lib && communication_library(lib)) return lib;
    }
    return {};
}

std::string launching_communication_library() {
    // Deep enough for the tool's callback, CUPTI, the driver, a static CUDA runtime and NCCL's launch code.
    constexpr int kFrames = 48;
    void* frames[kFrames];
    const int n = backtrace(frames, kFrames);
    return communication_caller(frames, n, [](const void* pc) -> const char* {
        Dl_info info{};
        return dladdr(pc, &info) && info.dli_fname ? info.dli_fname : nullptr;
    });
}

std::string CommunicationKernels::classify(std::string_view name, CUmodule module, const std::string& caller) {
    const std::string why = " is a communication kernel";
    if (communication_kernel_name(name)) return std::string(name) + why + " (NCCL's kernel names)";
    std::lock_guard<std::mutex> lock(mu_);
    if (!caller.empty()) {
        if (module) modules_.emplace(module, caller);
        return std::string(name) + why + " (launched from " + caller + ")";
    }
    auto it = module ? modules_.find(module) : modules_.end();
    if (it == modules_.end()) return {};
    return std::string(name) + why + " (its module's kernels are launched from " + it->second + ")";
}

void CommunicationKernels::forget(CUmodule module) {
    std::lock_guard<std::mutex> lock(mu_);
    modules_.erase(module);
}

}  // namespace gorocprof::cuda
