// The DevicePort of a simulated agent: one object per intercepted launch, living on the stack of the
// launch hook for the replay window.
#pragma once

#include "core.hpp"
#include "device_port.hpp"

#include <gorocprof/sim_tool.h>

namespace gorocprof::sim {

class SimPort : public replay::DevicePort {
public:
    explicit SimPort(const simLaunch* launch) : launch_(launch), agent_(launch->agent) {}

    replay::PortStatus drain(const replay::Dispatch& d) override;
    replay::PortStatus snapshot(const replay::Dispatch& d, replay::Snapshot** out) override;
    replay::PortStatus restore(const replay::Dispatch& d, replay::Snapshot& s) override;
    void release(replay::Snapshot* s) override;
    replay::PortStatus submit(const replay::Dispatch& d, uint64_t pass) override;
    void complete(const replay::Dispatch& d) override;

private:
    const simLaunch* launch_;
    int agent_;
    bool held_ = false;     // this port holds the agent (a replay window is open)
    bool drained_ = false;  // earlier work on the agent has finished
};

// Samples the counters core asks for on this pass from one execution and records the pass.
// `pass` is the replay pass, or kNotReplayed for a single run.
void record_execution(const simLaunch* launch, const simExecResult& result, uint64_t pass);

// "<call>: <reason>" of the runtime's last failure on this thread.
std::string last_error();

}  // namespace gorocprof::sim
