// NVTX ranges and marks as the marker domain (docs/tracing.md): this library is an NVTX injection. NVTX
// (every module that includes its headers has its own loader) loads the library NVTX_INJECTION64_PATH
// names at its first call and calls InitializeInjectionNvtx2, which fills that module's core function
// table with the handlers below. Traced: nvtxMarkA/Ex, nvtxRangeStartA/Ex + nvtxRangeEnd, nvtxRangePushA/Ex
// + nvtxRangePop. Not traced: the wide-character (W) calls and NVTX domains (nvtxDomain*), whose table
// slots stay NVTX's no-ops.
#include "core.hpp"
#include "trace.hpp"

#include <nvtx3/nvToolsExt.h>

#include <string_view>

namespace {

namespace trace = gorocprof::core::trace;

// Push/pop levels per thread, as NVTX returns them (counted whether or not markers are traced).
thread_local int t_level = 0;

std::string_view message_of(const nvtxEventAttributes_t* a) {
    if (a == nullptr || a->messageType != NVTX_MESSAGE_TYPE_ASCII || a->message.ascii == nullptr) return {};
    return a->message.ascii;
}
std::string_view text(const char* m) { return m != nullptr ? std::string_view(m) : std::string_view(); }

void NVTX_API mark_a(const char* m) { trace::marker_mark("nvtxMarkA", text(m)); }
void NVTX_API mark_ex(const nvtxEventAttributes_t* a) { trace::marker_mark("nvtxMarkEx", message_of(a)); }
nvtxRangeId_t NVTX_API start_a(const char* m) { return trace::marker_start("nvtxRangeStartA", text(m)); }
nvtxRangeId_t NVTX_API start_ex(const nvtxEventAttributes_t* a) {
    return trace::marker_start("nvtxRangeStartEx", message_of(a));
}
void NVTX_API range_end(nvtxRangeId_t id) { trace::marker_stop(id); }
int NVTX_API push_a(const char* m) {
    trace::marker_push("nvtxRangePushA", text(m));
    return t_level++;
}
int NVTX_API push_ex(const nvtxEventAttributes_t* a) {
    trace::marker_push("nvtxRangePushEx", message_of(a));
    return t_level++;
}
int NVTX_API pop() {
    if (t_level == 0) return -1;  // NVTX's answer to a pop without a push
    trace::marker_pop();
    return --t_level;
}

void install(NvtxFunctionTable table, unsigned int size, unsigned int id, NvtxFunctionPointer fn) {
    if (id < size && table[id] != nullptr) *table[id] = fn;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get) {
    using gorocprof::core::Core;
    // An NVTX call may come before CUDA's start: core opens the records here then (idempotent).
    if (!Core::initialize("cuda")) return 0;
    if (!trace::enabled(trace::Domain::Marker)) return 0;  // NVTX stays its no-ops
    auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get != nullptr ? get(NVTX_ETID_CALLBACKS) : nullptr);
    NvtxFunctionTable table = nullptr;
    unsigned int size = 0;
    if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
        callbacks->GetModuleFunctionTable == nullptr ||
        callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) == 0 || table == nullptr) {
        Core::instance().warn("marker trace: an NVTX module offered no core function table: its ranges and marks are not traced");
        return 0;
    }
    install(table, size, NVTX_CBID_CORE_MarkA, reinterpret_cast<NvtxFunctionPointer>(mark_a));
    install(table, size, NVTX_CBID_CORE_MarkEx, reinterpret_cast<NvtxFunctionPointer>(mark_ex));
    install(table, size, NVTX_CBID_CORE_RangeStartA, reinterpret_cast<NvtxFunctionPointer>(start_a));
    install(table, size, NVTX_CBID_CORE_RangeStartEx, reinterpret_cast<NvtxFunctionPointer>(start_ex));
    install(table, size, NVTX_CBID_CORE_RangeEnd, reinterpret_cast<NvtxFunctionPointer>(range_end));
    install(table, size, NVTX_CBID_CORE_RangePushA, reinterpret_cast<NvtxFunctionPointer>(push_a));
    install(table, size, NVTX_CBID_CORE_RangePushEx, reinterpret_cast<NvtxFunctionPointer>(push_ex));
    install(table, size, NVTX_CBID_CORE_RangePop, reinterpret_cast<NvtxFunctionPointer>(pop));
    return 1;
}
