// A small strict JSON reader (RFC 8259: no comments, no trailing commas, no duplicate keys, valid
// UTF-8) for the plan file, and the escaping writer the record lines use. No dependencies: the tool
// library is loaded into arbitrary applications and must not drag a JSON library along.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gorocprof::json {

class Value {
public:
    enum class Kind { Null, Bool, Number, String, Array, Object };

    Kind kind() const { return kind_; }
    bool is_null() const { return kind_ == Kind::Null; }
    bool is_bool() const { return kind_ == Kind::Bool; }
    bool is_number() const { return kind_ == Kind::Number; }
    bool is_string() const { return kind_ == Kind::String; }
    bool is_array() const { return kind_ == Kind::Array; }
    bool is_object() const { return kind_ == Kind::Object; }
    // A number written without fraction or exponent that fits int64.
    bool is_integer() const { return kind_ == Kind::Number && integral_; }

    bool as_bool() const { return bool_; }
    double as_double() const { return number_; }
    int64_t as_int() const { return integer_; }
    const std::string& as_string() const { return string_; }
    const std::vector<Value>& items() const { return items_; }
    const std::vector<std::pair<std::string, Value>>& members() const { return members_; }

    // Member of an object by key, or nullptr.
    const Value* find(const std::string& key) const;

    static const char* kind_name(Kind k);

private:
    friend class Parser;
    Kind kind_ = Kind::Null;
    bool bool_ = false;
    bool integral_ = false;
    double number_ = 0;
    int64_t integer_ = 0;
    std::string string_;
    std::vector<Value> items_;
    std::vector<std::pair<std::string, Value>> members_;
};

// Parses exactly one JSON document (surrounding whitespace allowed). On failure returns false and sets
// *error to "line L, column C: reason".
bool parse(const std::string& text, Value* out, std::string* error);

// Appends `s` as a JSON string literal (quotes included). Control characters are escaped; bytes that are
// not valid UTF-8 are replaced by U+FFFD so that every record line stays valid JSON.
void append_string(std::string& out, const char* s, size_t n);
inline void append_string(std::string& out, const std::string& s) { append_string(out, s.data(), s.size()); }

void append_int(std::string& out, int64_t v);
void append_uint(std::string& out, uint64_t v);
// Shortest round-trip form; NaN and infinities become null (JSON has no spelling for them).
void append_double(std::string& out, double v);

}  // namespace gorocprof::json
