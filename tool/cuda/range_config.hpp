// The Range Profiler settings of every window, the tool's and its benches': the caller replays each pass
// (user replay), one nesting level, auto ranges (every kernel launched while started) or user ranges.
#pragma once

#include "check.hpp"

#include <cupti_range_profiler.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gorocprof::cuda {

// cuptiRangeProfilerSetConfig of one hardware pass of `config` into `counter_data`, `ranges` at most.
inline PortStatus set_range_config(CUpti_RangeProfiler_Object* obj, const std::vector<uint8_t>& config,
                                   std::vector<uint8_t>& counter_data, bool user_range, size_t ranges) {
    CUpti_RangeProfiler_SetConfig_Params cfg{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    cfg.pRangeProfilerObject = obj;
    cfg.configSize = config.size();
    cfg.pConfig = config.data();
    cfg.counterDataImageSize = counter_data.size();
    cfg.pCounterDataImage = counter_data.data();
    cfg.range = user_range ? CUPTI_UserRange : CUPTI_AutoRange;
    cfg.replayMode = CUPTI_UserReplay;
    cfg.maxRangesPerPass = ranges;
    cfg.numNestingLevels = 1;
    cfg.minNestingLevel = 1;
    cfg.passIndex = 0;
    cfg.targetNestingLevel = 1;
    return cupti(cuptiRangeProfilerSetConfig(&cfg), "cuptiRangeProfilerSetConfig");
}

}  // namespace gorocprof::cuda
