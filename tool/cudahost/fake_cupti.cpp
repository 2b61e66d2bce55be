#include "fake_cupti.hpp"

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>

#include <cstring>
#include <limits>
#include <memory>
#include <vector>

struct CUpti_Profiler_Host_Object {
    // The availability image it was initialized on, which CUPTI keeps a pointer to (not a copy), and the byte
    // it held then: a later call through this object that finds another byte there read an image that was
    // replaced or freed under it.
    const uint8_t* image = nullptr;
    uint8_t image_byte = 0;
    std::vector<std::string> metrics;
    std::map<int, std::vector<const char*>> bases;  // what GetBaseMetrics last handed out, per type
    std::vector<const char*> subs;                  // what GetSubMetrics last handed out
};

struct CUpti_RangeProfiler_Object {
    // The first configuration's metrics, by hardware pass: what the ranges get, whatever SetConfig says later.
    std::vector<std::vector<std::string>> measured;
    size_t hw_pass = 0;  // the hardware pass the next Start..Stop measures
    size_t cursor = 0;   // the range the next kernel goes into (each hardware pass runs the same kernels)
    uint8_t* image = nullptr;
    size_t max_ranges = 0;
    // As on the H200 (docs/perf.md, attempt 15): ranges beyond twice the first SetConfig's maxRangesPerPass
    // are not recorded, whatever later SetConfig calls say.
    size_t first_max_ranges = 0;
    bool running = false;
    // CUPTI_UserRange: kernels count only between PushRange and PopRange, all into the pushed range (their
    // values added up, as hardware counters add); a kernel outside a range is not recorded.
    bool user_range = false;
    bool pushed = false;
};

namespace fakecupti {
namespace {

using Range = std::map<std::string, double>;

struct World {
    State state;
    // At most one per context; kernel() runs in `current` (set_context), as a launch runs in its context.
    std::map<CUcontext, std::unique_ptr<CUpti_RangeProfiler_Object>> objects;
    CUcontext current = nullptr;
    std::map<const uint8_t*, std::vector<Range>> images;  // counter data: the ranges recorded into each
};

World& world() {
    static World w;
    return w;
}

// An object some context enabled (and did not disable).
bool known(const CUpti_RangeProfiler_Object* o) {
    for (const auto& [ctx, obj] : world().objects)
        if (obj.get() == o) return o != nullptr;
    return false;
}

std::string encode(const std::vector<std::string>& metrics) {
    std::string out;
    for (const std::string& m : metrics) out += m + "\n";
    return out;
}

std::vector<std::string> decode(const uint8_t* image, size_t size) {
    std::vector<std::string> out;
    std::string cur;
    for (size_t i = 0; i < size; ++i) {
        if (image[i] == '\n') {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += static_cast<char>(image[i]);
        }
    }
    return out;
}

// A configuration's hardware passes: metrics in order, a pass closed when the next one's cost would take it
// past the capacity.
std::vector<std::vector<std::string>> split(const std::vector<std::string>& metrics) {
    const State& s = world().state;
    std::vector<std::vector<std::string>> out;
    int used = 0;
    for (const std::string& m : metrics) {
        auto it = s.cost.find(m);
        const int c = it == s.cost.end() ? 1 : it->second;
        if (out.empty() || used + c > s.capacity) {
            out.emplace_back();
            used = 0;
        }
        out.back().push_back(m);
        used += c;
    }
    if (out.empty()) out.emplace_back();
    if (!s.pass_of.empty()) {
        std::vector<std::vector<std::string>> placed(out.size());
        for (size_t k = 0; k < out.size(); ++k)
            for (const std::string& m : out[k]) {
                auto it = s.pass_of.find(m);
                const size_t to = it == s.pass_of.end() ? k : it->second;
                if (placed.size() <= to) placed.resize(to + 1);
                placed[to].push_back(m);
            }
        out.clear();
        for (auto& pass : placed)
            if (!pass.empty()) out.push_back(std::move(pass));
        if (out.empty()) out.emplace_back();
    }
    return out;
}

}  // namespace

State& state() { return world().state; }

void reset() {
    World& w = world();
    w.state = State{};
    w.objects.clear();
    w.current = nullptr;
    w.images.clear();
}

void set_context(CUcontext ctx) { world().current = ctx; }

void kernel(size_t id) {
    World& w = world();
    if (w.objects.empty()) return;
    // A test that never names a context runs its kernels in the one context it enabled.
    auto it = w.objects.size() == 1 && !w.current ? w.objects.begin() : w.objects.find(w.current);
    CUpti_RangeProfiler_Object* o = it == w.objects.end() ? nullptr : it->second.get();
    if (!o || !o->running || !o->image) return;
    if (o->user_range && !o->pushed) return;  // outside any user range
    if (o->cursor >= o->max_ranges || o->cursor >= 2 * o->first_max_ranges) return;  // not recorded
    std::vector<Range>& ranges = w.images[o->image];
    if (ranges.size() <= o->cursor) ranges.resize(o->cursor + 1);
    for (const std::string& m : o->measured[o->hw_pass]) {
        const double v = w.state.value ? w.state.value(m, id) : 0;
        ranges[o->cursor][m] = o->user_range ? ranges[o->cursor][m] + v : v;
    }
    if (!o->user_range) ++o->cursor;
}

}  // namespace fakecupti

using fakecupti::world;

extern "C" {

CUptiResult cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params* p) {
    if (p->pCounterAvailabilityImage) {
        p->pCounterAvailabilityImage[0] = world().state.availability;
        ++world().state.availability_reads;
    }
    p->counterAvailabilityImageSize = 1;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params* p) {
    if (!p->pChipName || !*p->pChipName) return CUPTI_ERROR_INVALID_PARAMETER;
    const fakecupti::State& s = world().state;
    if (s.host_wants_current_availability &&
        (!p->pCounterAvailabilityImage || p->pCounterAvailabilityImage[0] != s.availability))
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->pHostObject = new CUpti_Profiler_Host_Object;
    p->pHostObject->image = p->pCounterAvailabilityImage;
    if (p->pCounterAvailabilityImage) p->pHostObject->image_byte = p->pCounterAvailabilityImage[0];
    world().state.host_types.push_back(static_cast<int>(p->profilerType));
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params* p) {
    delete p->pHostObject;
    return CUPTI_SUCCESS;
}

namespace {

bool image_intact(const CUpti_Profiler_Host_Object* o) { return !o || !o->image || o->image[0] == o->image_byte; }

}  // namespace

CUptiResult cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params* p) {
    if (!image_intact(p->pHostObject)) return CUPTI_ERROR_INVALID_PARAMETER;
    for (size_t i = 0; i < p->numMetrics; ++i) p->pHostObject->metrics.push_back(p->ppMetricNames[i]);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params* p) {
    p->configImageSize = fakecupti::encode(p->pHostObject->metrics).size();
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params* p) {
    const std::string image = fakecupti::encode(p->pHostObject->metrics);
    if (p->configImageSize < image.size()) return CUPTI_ERROR_INVALID_PARAMETER;
    std::memcpy(p->pConfigImage, image.data(), image.size());
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params* p) {
    p->numOfPasses = fakecupti::split(fakecupti::decode(p->pConfigImage, p->configImageSize)).size();
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetBaseMetrics(CUpti_Profiler_Host_GetBaseMetrics_Params* p) {
    // The names live in the host object, as CUPTI's do, until it is deinitialized.
    std::vector<const char*>& names = p->pHostObject->bases[p->metricType];
    names.clear();
    for (const auto& b : world().state.catalog[p->metricType]) names.push_back(b.name.c_str());
    p->ppMetricNames = names.data();
    p->numMetrics = names.size();
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetMetricProperties(CUpti_Profiler_Host_GetMetricProperties_Params* p) {
    ++world().state.host_calls;
    for (const auto& [type, bases] : world().state.catalog)
        for (const auto& b : bases)
            if (b.name == p->pMetricName) {
                p->pDescription = b.description.c_str();
                p->pDimUnit = b.unit.c_str();
                return CUPTI_SUCCESS;
            }
    return CUPTI_ERROR_INVALID_OPERATION;
}

CUptiResult cuptiProfilerHostGetSubMetrics(CUpti_Profiler_Host_GetSubMetrics_Params* p) {
    ++world().state.host_calls;
    for (const auto& b : world().state.catalog[p->metricType])
        if (b.name == p->pMetricName) {
            std::vector<const char*>& subs = p->pHostObject->subs;
            subs.clear();
            for (const std::string& s : b.subs) subs.push_back(s.c_str());
            p->ppSubMetrics = subs.data();
            p->numOfSubmetrics = subs.size();
            return CUPTI_SUCCESS;
        }
    return CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) {
    if (!image_intact(p->pHostObject)) return CUPTI_ERROR_INVALID_PARAMETER;
    auto it = world().images.find(p->pCounterDataImage);
    if (it == world().images.end() || p->rangeIndex >= it->second.size()) return CUPTI_ERROR_INVALID_PARAMETER;
    const fakecupti::Range& r = it->second[p->rangeIndex];
    // The configuration the image's object measures: a metric of it that no session recorded into this range
    // (a session ran fewer kernels) reads NaN; a metric of another configuration reads 0, as on the H200.
    const CUpti_RangeProfiler_Object* owner = nullptr;
    for (const auto& [ctx, obj] : world().objects)
        if (obj->image == p->pCounterDataImage) owner = obj.get();
    auto measured = [owner](const std::string& m) {
        if (owner)
            for (const auto& pass : owner->measured)
                for (const std::string& x : pass)
                    if (x == m) return true;
        return false;
    };
    for (size_t i = 0; i < p->numMetrics; ++i) {
        auto v = r.find(p->ppMetricNames[i]);
        p->pMetricValues[i] = v != r.end() ? v->second
                              : measured(p->ppMetricNames[i]) ? std::numeric_limits<double>::quiet_NaN()
                                                              : 0.0;
    }
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params* p) {
    auto& slot = world().objects[p->ctx];
    if (slot) return CUPTI_ERROR_INVALID_OPERATION;  // one object per context
    slot = std::make_unique<CUpti_RangeProfiler_Object>();
    p->pRangeProfilerObject = slot.get();
    ++world().state.enables;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params* p) {
    if (!fakecupti::known(p->pRangeProfilerObject)) return CUPTI_ERROR_INVALID_PARAMETER;
    for (auto it = world().objects.begin(); it != world().objects.end(); ++it)
        if (it->second.get() == p->pRangeProfilerObject) {
            world().objects.erase(it);
            break;
        }
    ++world().state.disables;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params* p) {
    p->counterDataSize = 64 + 16 * p->maxNumOfRanges * (p->numMetrics + 1);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerCounterDataImageInitialize(CUpti_RangeProfiler_CounterDataImage_Initialize_Params* p) {
    if (!fakecupti::known(p->pRangeProfilerObject)) return CUPTI_ERROR_INVALID_PARAMETER;
    world().images[p->pCounterData].clear();
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params* p) {
    CUpti_RangeProfiler_Object* o = p->pRangeProfilerObject;
    if (!fakecupti::known(o) || o->running) return CUPTI_ERROR_INVALID_OPERATION;
    world().state.last_config = fakecupti::decode(p->pConfig, p->configSize);
    if (world().state.reject_config && world().state.reject_config(world().state.last_config))
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (o->measured.empty()) o->measured = fakecupti::split(world().state.last_config);
    o->hw_pass = 0;
    o->image = p->pCounterDataImage;
    o->max_ranges = p->maxRangesPerPass;
    if (o->first_max_ranges == 0) o->first_max_ranges = p->maxRangesPerPass;
    o->user_range = p->range == CUPTI_UserRange;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params* p) {
    CUpti_RangeProfiler_Object* o = p->pRangeProfilerObject;
    if (!fakecupti::known(o) || o->running || !o->image) return CUPTI_ERROR_INVALID_OPERATION;
    o->running = true;
    o->cursor = 0;
    ++world().state.starts;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params* p) {
    CUpti_RangeProfiler_Object* o = p->pRangeProfilerObject;
    if (!fakecupti::known(o) || !o->running) return CUPTI_ERROR_INVALID_OPERATION;
    o->running = false;
    // The configuration's hardware passes in turn: Stop says whether the last one was submitted.
    o->hw_pass = o->hw_pass + 1 < o->measured.size() ? o->hw_pass + 1 : 0;
    p->isAllPassSubmitted = o->hw_pass == 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerPushRange(CUpti_RangeProfiler_PushRange_Params* p) {
    CUpti_RangeProfiler_Object* o = p->pRangeProfilerObject;
    if (!fakecupti::known(o) || !o->running || !o->user_range || o->pushed || !p->pRangeName)
        return CUPTI_ERROR_INVALID_OPERATION;
    o->pushed = true;
    // Each hardware pass measures the same range again: it starts from nothing.
    std::vector<fakecupti::Range>& ranges = world().images[o->image];
    if (ranges.size() <= o->cursor) ranges.resize(o->cursor + 1);
    for (const std::string& m : o->measured[o->hw_pass]) ranges[o->cursor][m] = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerPopRange(CUpti_RangeProfiler_PopRange_Params* p) {
    CUpti_RangeProfiler_Object* o = p->pRangeProfilerObject;
    if (!fakecupti::known(o) || !o->pushed) return CUPTI_ERROR_INVALID_OPERATION;
    o->pushed = false;
    ++o->cursor;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params* p) {
    if (!fakecupti::known(p->pRangeProfilerObject) || p->pRangeProfilerObject->running)
        return CUPTI_ERROR_INVALID_OPERATION;
    p->numOfRangeDropped = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params* p) {
    auto it = world().images.find(p->pCounterDataImage);
    p->numTotalRanges = it == world().images.end() ? 0 : it->second.size();
    return CUPTI_SUCCESS;
}

}  // extern "C"
