#include "names.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>

namespace gorocprof::core {
namespace {

bool is_ident(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

bool ends_with(const std::string& s, const char* suffix) {
    size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// Drops what the demangler appends after the parameter list: GCC's " [clone .constprop.0]" suffixes and
// member-function qualifiers.
std::string strip_suffixes(std::string s) {
    static const char* const kQualifiers[] = {" const", " volatile", " &&", " &", " noexcept", " restrict"};
    for (bool changed = true; changed;) {
        changed = false;
        while (!s.empty() && s.back() == ' ') s.pop_back();
        if (!s.empty() && s.back() == ']') {
            size_t open = s.rfind(" [clone ");
            if (open != std::string::npos) {
                s.erase(open);
                changed = true;
                continue;
            }
        }
        for (const char* q : kQualifiers) {
            if (ends_with(s, q)) {
                s.erase(s.size() - std::strlen(q));
                changed = true;
                break;
            }
        }
    }
    return s;
}

// Index of the '(' that opens the parameter list ending at s.back() == ')', or npos.
size_t parameter_list_start(const std::string& s) {
    if (s.empty() || s.back() != ')') return std::string::npos;
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
        if (s[i] == ')') ++depth;
        else if (s[i] == '(' && --depth == 0) return i;
    }
    return std::string::npos;
}

// Length of the operator symbol after the keyword `operator` at s[i] (0 when it is not an operator
// name such as `operator<`, `operator()` or `operator->*`).
size_t operator_symbol_length(const std::string& s, size_t i) {
    static const char* const kSymbols[] = {"<=>", "->*", "<<=", ">>=", "()", "[]", "->", "<<", ">>", "<=", ">=",
                                           "==", "!=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=",
                                           "&=", "|=", "^=", "<", ">", "+", "-", "*", "/", "%", "^", "&", "|",
                                           "~", "!", "=", ","};
    for (const char* sym : kSymbols) {
        size_t n = std::strlen(sym);
        if (s.compare(i, n, sym) == 0) return n;
    }
    return 0;
}

// Removes every template argument list, however nested; parentheses inside an argument list (casts,
// decltype expressions) hide their '<' and '>' from the count.
std::string strip_templates(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    int angle = 0;
    int paren_in_angle = 0;
    for (size_t i = 0; i < s.size();) {
        char c = s[i];
        if (angle == 0 && s.compare(i, 8, "operator") == 0 && (i == 0 || !is_ident(s[i - 1])) &&
            (i + 8 >= s.size() || !is_ident(s[i + 8]))) {
            size_t j = i + 8;
            size_t sym = operator_symbol_length(s, j);
            out.append(s, i, j + sym - i);
            i = j + sym;
            continue;
        }
        if (angle > 0) {
            if (c == '(') ++paren_in_angle;
            else if (c == ')' && paren_in_angle > 0) --paren_in_angle;
            else if (paren_in_angle == 0 && c == '<') ++angle;
            else if (paren_in_angle == 0 && c == '>') --angle;
        } else if (c == '<') {
            angle = 1;
            paren_in_angle = 0;
        } else {
            out.push_back(c);
        }
        ++i;
    }
    return out;
}

// Drops a return type: the name is what follows the last space outside parentheses and braces (so
// `(anonymous namespace)` and `{lambda(int)#1}` stay whole), unless that space belongs to `operator new`.
std::string strip_return_type(const std::string& s) {
    int depth = 0;
    size_t cut = std::string::npos;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '(' || c == '{' || c == '[') ++depth;
        else if ((c == ')' || c == '}' || c == ']') && depth > 0) --depth;
        else if (c == ' ' && depth == 0) {
            bool after_operator = i >= 8 && s.compare(i - 8, 8, "operator") == 0 && (i == 8 || !is_ident(s[i - 9]));
            if (!after_operator) cut = i;
        }
    }
    return cut == std::string::npos ? s : s.substr(cut + 1);
}

}  // namespace

std::string demangle(const std::string& symbol) {
    // AMD code objects name a kernel's descriptor `<symbol>.kd`; the demangler would take the suffix
    // for a clone (" [clone .kd]").
    std::string base = ends_with(symbol, ".kd") ? symbol.substr(0, symbol.size() - 3) : symbol;
    int status = 0;
    char* out = abi::__cxa_demangle(base.c_str(), nullptr, nullptr, &status);
    std::string result = (status == 0 && out != nullptr) ? std::string(out) : symbol;
    std::free(out);
    return result;
}

std::string truncate_name(const std::string& demangled) {
    std::string s = strip_suffixes(demangled);
    size_t params = parameter_list_start(s);
    if (params != std::string::npos && params > 0) {
        // `operator()(int)`: the first pair belongs to the name, the last to the parameters.
        s.erase(params);
    }
    s = strip_templates(s);
    // `operator< <int>` leaves a space behind the operator.
    while (!s.empty() && s.back() == ' ') s.pop_back();
    s = strip_return_type(s);
    return s.empty() ? demangled : s;
}

}  // namespace gorocprof::core
