#include "json.hpp"

#include <charconv>
#include <system_error>
#include <cmath>

namespace gorocprof::json {

const Value* Value::find(const std::string& key) const {
    for (const auto& m : members_) {
        if (m.first == key) return &m.second;
    }
    return nullptr;
}

const char* Value::kind_name(Kind k) {
    switch (k) {
        case Kind::Null: return "null";
        case Kind::Bool: return "a boolean";
        case Kind::Number: return "a number";
        case Kind::String: return "a string";
        case Kind::Array: return "an array";
        case Kind::Object: return "an object";
    }
    return "?";
}

// Recursive descent with a depth limit so that a hostile plan cannot overflow the app's stack.
class Parser {
public:
    explicit Parser(const std::string& text) : s_(text) {}

    bool document(Value* out, std::string* error) {
        skip_ws();
        if (!value(out, 0)) return report(error);
        skip_ws();
        if (pos_ != s_.size()) {
            fail("unexpected text after the document");
            return report(error);
        }
        return true;
    }

private:
    static constexpr int kMaxDepth = 128;
    const std::string& s_;
    size_t pos_ = 0;
    size_t err_pos_ = 0;
    std::string err_;

    bool fail(const char* reason) {
        if (err_.empty()) {
            err_ = reason;
            err_pos_ = pos_;
        }
        return false;
    }

    bool report(std::string* error) {
        size_t line = 1, col = 1;
        for (size_t i = 0; i < err_pos_ && i < s_.size(); ++i) {
            if (s_[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        if (error) *error = "line " + std::to_string(line) + ", column " + std::to_string(col) + ": " + err_;
        return false;
    }

    bool at_end() const { return pos_ >= s_.size(); }
    char peek() const { return at_end() ? '\0' : s_[pos_]; }

    void skip_ws() {
        while (!at_end() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
    }

    bool literal(const char* word) {
        size_t n = 0;
        while (word[n] != '\0') ++n;
        if (s_.compare(pos_, n, word) != 0) return fail("invalid literal");
        pos_ += n;
        return true;
    }

    bool value(Value* out, int depth) {
        if (depth > kMaxDepth) return fail("nesting deeper than 128 levels");
        if (at_end()) return fail("unexpected end of input, expected a value");
        char c = peek();
        switch (c) {
            case '{': return object(out, depth);
            case '[': return array(out, depth);
            case '"': out->kind_ = Value::Kind::String; return string(&out->string_);
            case 't': out->kind_ = Value::Kind::Bool; out->bool_ = true; return literal("true");
            case 'f': out->kind_ = Value::Kind::Bool; out->bool_ = false; return literal("false");
            case 'n': out->kind_ = Value::Kind::Null; return literal("null");
            default:
                if (c == '-' || (c >= '0' && c <= '9')) return number(out);
                return fail("unexpected character, expected a value");
        }
    }

    bool object(Value* out, int depth) {
        out->kind_ = Value::Kind::Object;
        ++pos_;  // '{'
        skip_ws();
        if (peek() == '}') {
            ++pos_;
            return true;
        }
        for (;;) {
            skip_ws();
            if (peek() != '"') return fail("expected a string key");
            size_t key_pos = pos_;
            std::string key;
            if (!string(&key)) return false;
            if (out->find(key) != nullptr) {
                pos_ = key_pos;
                return fail(("duplicate key \"" + key + "\"").c_str());
            }
            skip_ws();
            if (peek() != ':') return fail("expected ':' after an object key");
            ++pos_;
            skip_ws();
            out->members_.emplace_back(std::move(key), Value{});
            if (!value(&out->members_.back().second, depth + 1)) return false;
            skip_ws();
            if (peek() == ',') {
                ++pos_;
                skip_ws();
                if (peek() == '}') return fail("trailing comma in an object");
                continue;
            }
            if (peek() == '}') {
                ++pos_;
                return true;
            }
            return fail("expected ',' or '}' in an object");
        }
    }

    bool array(Value* out, int depth) {
        out->kind_ = Value::Kind::Array;
        ++pos_;  // '['
        skip_ws();
        if (peek() == ']') {
            ++pos_;
            return true;
        }
        for (;;) {
            skip_ws();
            out->items_.emplace_back();
            if (!value(&out->items_.back(), depth + 1)) return false;
            skip_ws();
            if (peek() == ',') {
                ++pos_;
                skip_ws();
                if (peek() == ']') return fail("trailing comma in an array");
                continue;
            }
            if (peek() == ']') {
                ++pos_;
                return true;
            }
            return fail("expected ',' or ']' in an array");
        }
    }

    bool hex4(uint32_t* out) {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            char c = peek();
            uint32_t d;
            if (c >= '0' && c <= '9') d = c - '0';
            else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
            else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
            else return fail("invalid \\u escape");
            v = v * 16 + d;
            ++pos_;
        }
        *out = v;
        return true;
    }

    static void put_utf8(std::string* out, uint32_t cp) {
        if (cp < 0x80) {
            out->push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
            out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
            out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
    }

    bool escape(std::string* out) {
        ++pos_;  // '\\'
        if (at_end()) return fail("unterminated string");
        char c = s_[pos_++];
        switch (c) {
            case '"': out->push_back('"'); return true;
            case '\\': out->push_back('\\'); return true;
            case '/': out->push_back('/'); return true;
            case 'b': out->push_back('\b'); return true;
            case 'f': out->push_back('\f'); return true;
            case 'n': out->push_back('\n'); return true;
            case 'r': out->push_back('\r'); return true;
            case 't': out->push_back('\t'); return true;
            case 'u': break;
            default: --pos_; return fail("invalid escape sequence");
        }
        uint32_t cp;
        if (!hex4(&cp)) return false;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("unpaired low surrogate in \\u escape");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.compare(pos_, 2, "\\u") != 0) return fail("unpaired high surrogate in \\u escape");
            pos_ += 2;
            uint32_t lo;
            if (!hex4(&lo)) return false;
            if (lo < 0xDC00 || lo > 0xDFFF) return fail("invalid low surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        put_utf8(out, cp);
        return true;
    }

    // Validates one UTF-8 sequence starting at pos_ and copies it.
    bool utf8(std::string* out) {
        auto b = [&](size_t i) { return static_cast<unsigned char>(s_[pos_ + i]); };
        unsigned char c = b(0);
        size_t n;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) { n = 2; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { n = 3; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { n = 4; cp = c & 0x07; }
        else return fail("invalid UTF-8 in a string");
        if (pos_ + n > s_.size()) return fail("invalid UTF-8 in a string");
        for (size_t i = 1; i < n; ++i) {
            if ((b(i) & 0xC0) != 0x80) return fail("invalid UTF-8 in a string");
            cp = (cp << 6) | (b(i) & 0x3F);
        }
        if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
            return fail("invalid UTF-8 in a string");
        out->append(s_, pos_, n);
        pos_ += n;
        return true;
    }

    bool string(std::string* out) {
        ++pos_;  // '"'
        for (;;) {
            if (at_end()) return fail("unterminated string");
            unsigned char c = static_cast<unsigned char>(s_[pos_]);
            if (c == '"') {
                ++pos_;
                return true;
            }
            if (c == '\\') {
                if (!escape(out)) return false;
            } else if (c < 0x20) {
                return fail("control character in a string");
            } else if (c < 0x80) {
                out->push_back(static_cast<char>(c));
                ++pos_;
            } else if (!utf8(out)) {
                return false;
            }
        }
    }

    bool number(Value* out) {
        size_t start = pos_;
        bool integral = true;
        if (peek() == '-') ++pos_;
        if (peek() == '0') {
            ++pos_;
            if (peek() >= '0' && peek() <= '9') return fail("leading zero in a number");
        } else if (peek() >= '1' && peek() <= '9') {
            while (peek() >= '0' && peek() <= '9') ++pos_;
        } else {
            return fail("invalid number");
        }
        if (peek() == '.') {
            integral = false;
            ++pos_;
            if (!(peek() >= '0' && peek() <= '9')) return fail("invalid number: digit expected after '.'");
            while (peek() >= '0' && peek() <= '9') ++pos_;
        }
        if (peek() == 'e' || peek() == 'E') {
            integral = false;
            ++pos_;
            if (peek() == '+' || peek() == '-') ++pos_;
            if (!(peek() >= '0' && peek() <= '9')) return fail("invalid number: digit expected in exponent");
            while (peek() >= '0' && peek() <= '9') ++pos_;
        }
        // from_chars, unlike strtod, ignores the application's locale (LC_NUMERIC may use ',').
        const char* first = s_.data() + start;
        const char* last = s_.data() + pos_;
        out->kind_ = Value::Kind::Number;
        auto r = std::from_chars(first, last, out->number_);
        if (r.ec == std::errc::result_out_of_range) {
            pos_ = start;
            return fail("number out of range");
        }
        if (integral) {
            int64_t v = 0;
            auto ri = std::from_chars(first, last, v);
            out->integral_ = ri.ec == std::errc() && ri.ptr == last;
            out->integer_ = out->integral_ ? v : 0;
        }
        return true;
    }
};

bool parse(const std::string& text, Value* out, std::string* error) {
    *out = Value{};
    Parser p(text);
    return p.document(out, error);
}

void append_string(std::string& out, const char* s, size_t n) {
    static const char kHex[] = "0123456789abcdef";
    out.push_back('"');
    size_t i = 0;
    while (i < n) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20 || c == 0x7F) {
                        out.append("\\u00");
                        out.push_back(kHex[c >> 4]);
                        out.push_back(kHex[c & 0xF]);
                    } else {
                        out.push_back(static_cast<char>(c));
                    }
            }
            ++i;
            continue;
        }
        size_t len = 0;
        uint32_t cp = 0;
        if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
        bool ok = len != 0 && i + len <= n;
        for (size_t k = 1; ok && k < len; ++k) {
            unsigned char cc = static_cast<unsigned char>(s[i + k]);
            ok = (cc & 0xC0) == 0x80;
            cp = (cp << 6) | (cc & 0x3F);
        }
        if (ok && ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
                   (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))))
            ok = false;
        if (ok) {
            out.append(s + i, len);
            i += len;
        } else {
            out.append("\xEF\xBF\xBD");
            ++i;
        }
    }
    out.push_back('"');
}

void append_int(std::string& out, int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

void append_uint(std::string& out, uint64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

void append_double(std::string& out, double v) {
    if (!std::isfinite(v)) {
        out.append("null");
        return;
    }
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

}  // namespace gorocprof::json
