// The replay window of a simulated agent: drain, snapshot, restore, release and the application's
// completion of one intercepted launch. Every tool that replays over the sim runtime (the sim
// backend, the rocprofiler-sdk emulator) derives its DevicePort from it and adds submit().
#pragma once

#include "device_port.hpp"

#include <gorocprof/sim_tool.h>

#include <string>

namespace gorocprof::sim {

class SimWindowPort : public replay::DevicePort {
public:
    explicit SimWindowPort(const simLaunch* launch) : launch_(launch), agent_(launch->agent) {}

    replay::PortStatus drain(const replay::Dispatch& d) override;
    replay::PortStatus snapshot(const replay::Dispatch& d, replay::Snapshot** out) override;
    replay::PortStatus restore(const replay::Dispatch& d, replay::Snapshot& s) override;
    void release(replay::Snapshot* s) override;
    void complete(const replay::Dispatch& d) override;

protected:
    // Runs the launch once, after the work queued before it (a single run skips drain()).
    replay::PortStatus execute(simExecResult* result);
    // A failure after the launch was handed back, which no caller can see (the completion).
    virtual void report(const std::string& message) = 0;

    const simLaunch* launch_;
    int agent_;

private:
    bool held_ = false;     // this port holds the agent (a replay window is open)
    bool drained_ = false;  // earlier work on the agent has finished
};

// "<call>: <reason>" of the runtime's last failure on this thread.
std::string last_error();

}  // namespace gorocprof::sim
