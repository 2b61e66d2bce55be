// What the tool prints on stderr: one write(2) per message, prefixed "gorocprof-tool: ", filtered by
// GOROCPROF_LOG_LEVEL.
#pragma once

#include "core.hpp"

#include <string>

namespace gorocprof::core {

void set_log_level(LogLevel level);
bool log_enabled(LogLevel level);
void log(LogLevel level, const std::string& message);

}  // namespace gorocprof::core
