// File helpers for tests that write plans and read record files.
#pragma once

#include <string>
#include <vector>

namespace check {

// A fresh directory under $TMPDIR; ends the test when none can be made. Removed with its contents
// when the process that made it exits normally (GOROCPROF_KEEP_TEST_DIRS=1 keeps them to look at).
std::string temp_dir();
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);
std::vector<std::string> lines_of(const std::string& text);  // complete lines only

}  // namespace check
