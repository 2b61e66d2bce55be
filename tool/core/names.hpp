// Kernel names as the filters and the output show them: demangled, and truncated (without template
// arguments, parameter list and return type, as `-T` asks).
#pragma once

#include <string>

namespace gorocprof::core {

// The demangled form of a symbol, or the symbol itself when it is not an Itanium C++ mangled name.
std::string demangle(const std::string& symbol);

// `void ns::foo<int, bar<2>>(float*, int) const` -> `ns::foo`. Operator names (`operator<`,
// `operator()`), lambdas and `(anonymous namespace)` survive; a name the rules cannot shorten
// is returned unchanged.
std::string truncate_name(const std::string& demangled);

}  // namespace gorocprof::core
