// The DevicePort of a simulated agent for the sim backend: one object per intercepted launch, living
// on the stack of the launch hook for the replay window. The window itself is SimWindowPort's.
#pragma once

#include "core.hpp"
#include "sim_window.hpp"

#include <gorocprof/sim_tool.h>

namespace gorocprof::sim {

class SimPort : public SimWindowPort {
public:
    explicit SimPort(const simLaunch* launch) : SimWindowPort(launch) {}

    replay::PortStatus submit(const replay::Dispatch& d, uint64_t pass) override;

protected:
    void report(const std::string& message) override;
};

// Samples the counters core asks for on this pass from one execution and records the pass.
// `pass` is the replay pass, or kNotReplayed for a single run.
void record_execution(const simLaunch* launch, const simExecResult& result, uint64_t pass);

}  // namespace gorocprof::sim
