// NVTX ranges and marks as the marker domain (docs/tracing.md): this library is an NVTX injection. NVTX
// (every module that includes its headers has its own loader) loads the library NVTX_INJECTION64_PATH
// names at its first call and calls InitializeInjectionNvtx2, which fills that module's core function
// table with the handlers below. Traced: nvtxMarkA/W/Ex, nvtxRangeStartA/W/Ex + nvtxRangeEnd,
// nvtxRangePushA/W/Ex + nvtxRangePop (wide and Unicode messages as UTF-8: every push needs its handler,
// or a pop would end the enclosing range). Not traced: NVTX domains (nvtxDomain*), whose table slots stay
// NVTX's no-ops.
#include "core.hpp"
#include "trace.hpp"
#include "tracing.hpp"

#include <nvtx3/nvToolsExt.h>

#include <string>
#include <string_view>

namespace {

namespace trace = gorocprof::core::trace;

// Push/pop levels per thread, as NVTX returns them (counted whether or not markers are traced).
thread_local int t_level = 0;

// A wide string (UTF-32 on Linux) as UTF-8; a value that is no code point becomes U+FFFD.
std::string utf8(const wchar_t* w) {
    std::string out;
    for (; w != nullptr && *w != 0; ++w) {
        uint32_t c = static_cast<uint32_t>(*w);
        if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD;
        if (c < 0x80) {
            out.push_back(static_cast<char>(c));
        } else if (c < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (c >> 6)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        } else if (c < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (c >> 12)));
            out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xF0 | (c >> 18)));
            out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        }
    }
    return out;
}

std::string message_of(const nvtxEventAttributes_t* a) {
    if (a == nullptr) return {};
    if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii != nullptr) return a->message.ascii;
    if (a->messageType == NVTX_MESSAGE_TYPE_UNICODE) return utf8(a->message.unicode);
    return {};
}
std::string_view text(const char* m) { return m != nullptr ? std::string_view(m) : std::string_view(); }

void NVTX_API mark_a(const char* m) { trace::marker_mark("nvtxMarkA", text(m)); }
void NVTX_API mark_w(const wchar_t* m) { trace::marker_mark("nvtxMarkW", utf8(m)); }
void NVTX_API mark_ex(const nvtxEventAttributes_t* a) { trace::marker_mark("nvtxMarkEx", message_of(a)); }
nvtxRangeId_t NVTX_API start_a(const char* m) { return trace::marker_start("nvtxRangeStartA", text(m)); }
nvtxRangeId_t NVTX_API start_w(const wchar_t* m) { return trace::marker_start("nvtxRangeStartW", utf8(m)); }
nvtxRangeId_t NVTX_API start_ex(const nvtxEventAttributes_t* a) {
    return trace::marker_start("nvtxRangeStartEx", message_of(a));
}
void NVTX_API range_end(nvtxRangeId_t id) { trace::marker_stop(id); }
int NVTX_API push_a(const char* m) {
    trace::marker_push("nvtxRangePushA", text(m));
    return t_level++;
}
int NVTX_API push_w(const wchar_t* m) {
    trace::marker_push("nvtxRangePushW", utf8(m));
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
    gorocprof::cuda::tracing::keep_core_ids_apart();
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
    install(table, size, NVTX_CBID_CORE_MarkW, reinterpret_cast<NvtxFunctionPointer>(mark_w));
    install(table, size, NVTX_CBID_CORE_MarkEx, reinterpret_cast<NvtxFunctionPointer>(mark_ex));
    install(table, size, NVTX_CBID_CORE_RangeStartA, reinterpret_cast<NvtxFunctionPointer>(start_a));
    install(table, size, NVTX_CBID_CORE_RangeStartW, reinterpret_cast<NvtxFunctionPointer>(start_w));
    install(table, size, NVTX_CBID_CORE_RangeStartEx, reinterpret_cast<NvtxFunctionPointer>(start_ex));
    install(table, size, NVTX_CBID_CORE_RangeEnd, reinterpret_cast<NvtxFunctionPointer>(range_end));
    install(table, size, NVTX_CBID_CORE_RangePushA, reinterpret_cast<NvtxFunctionPointer>(push_a));
    install(table, size, NVTX_CBID_CORE_RangePushW, reinterpret_cast<NvtxFunctionPointer>(push_w));
    install(table, size, NVTX_CBID_CORE_RangePushEx, reinterpret_cast<NvtxFunctionPointer>(push_ex));
    install(table, size, NVTX_CBID_CORE_RangePop, reinterpret_cast<NvtxFunctionPointer>(pop));
    return 1;
}
