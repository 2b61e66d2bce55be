#include "check.hpp"

#include <json.hpp>

#include <cmath>
#include <limits>

using gorocprof::json::Value;
namespace json = gorocprof::json;

namespace {

std::string parse_error(const std::string& text) {
    Value v;
    std::string error;
    if (json::parse(text, &v, &error)) return "(parsed)";
    return error;
}

}  // namespace

TEST_CASE(json_parses_valid_documents) {
    Value v;
    std::string error;
    CHECK(json::parse(R"( {"a": [1, -2, 3.5, 1e3, -0, 0.25E-2], "b": {"c": null, "d": true, "e": false},
                          "s": "x\"y\\z\/\b\f\n\r\t\u00e9\ud83d\ude00", "empty": [], "o": {}} )",
                      &v, &error));
    CHECK_EQ(error, std::string());
    CHECK(v.is_object());
    const Value* a = v.find("a");
    CHECK(a != nullptr && a->is_array() && a->items().size() == 6);
    if (a != nullptr && a->items().size() == 6) {
        CHECK(a->items()[0].is_integer());
        CHECK_EQ(a->items()[0].as_int(), int64_t{1});
        CHECK_EQ(a->items()[1].as_int(), int64_t{-2});
        CHECK(!a->items()[2].is_integer());
        CHECK_EQ(a->items()[2].as_double(), 3.5);
        CHECK(!a->items()[3].is_integer());
        CHECK_EQ(a->items()[3].as_double(), 1000.0);
        CHECK_EQ(a->items()[5].as_double(), 0.0025);
    }
    const Value* b = v.find("b");
    CHECK(b != nullptr && b->find("c")->is_null() && b->find("d")->as_bool() && !b->find("e")->as_bool());
    CHECK_EQ(v.find("s")->as_string(), std::string("x\"y\\z/\b\f\n\r\t\xC3\xA9\xF0\x9F\x98\x80"));
    CHECK(v.find("missing") == nullptr);
    CHECK(json::parse("9223372036854775807", &v, &error) && v.is_integer());
    CHECK_EQ(v.as_int(), INT64_MAX);
    // Beyond int64: still a number, no longer an integer.
    CHECK(json::parse("9223372036854775808", &v, &error) && v.is_number() && !v.is_integer());
    CHECK(json::parse("\"caf\xC3\xA9\"", &v, &error));
}

TEST_CASE(json_rejects_invalid_documents_with_position) {
    CHECK_EQ(parse_error(""), std::string("line 1, column 1: unexpected end of input, expected a value"));
    CHECK_EQ(parse_error("{\"a\": 1,}"), std::string("line 1, column 9: trailing comma in an object"));
    CHECK_EQ(parse_error("[1, 2,]"), std::string("line 1, column 7: trailing comma in an array"));
    CHECK_EQ(parse_error("{\n  \"a\": 1,\n  \"a\": 2\n}"), std::string("line 3, column 3: duplicate key \"a\""));
    CHECK_EQ(parse_error("[01]"), std::string("line 1, column 3: leading zero in a number"));
    CHECK_EQ(parse_error("[1.]"), std::string("line 1, column 4: invalid number: digit expected after '.'"));
    CHECK_EQ(parse_error("{} x"), std::string("line 1, column 4: unexpected text after the document"));
    CHECK_EQ(parse_error("\"a\tb\""), std::string("line 1, column 3: control character in a string"));
    CHECK_EQ(parse_error("\"\\x\""), std::string("line 1, column 3: invalid escape sequence"));
    CHECK_EQ(parse_error("\"\\ud800\""), std::string("line 1, column 8: unpaired high surrogate in \\u escape"));
    CHECK_EQ(parse_error("\"\xC3\x28\""), std::string("line 1, column 2: invalid UTF-8 in a string"));
    CHECK_EQ(parse_error("\"\xED\xA0\x80\""), std::string("line 1, column 2: invalid UTF-8 in a string"));
    CHECK_EQ(parse_error("{\"a\" 1}"), std::string("line 1, column 6: expected ':' after an object key"));
    CHECK_EQ(parse_error("{1: 2}"), std::string("line 1, column 2: expected a string key"));
    CHECK_EQ(parse_error("[tru]"), std::string("line 1, column 2: invalid literal"));
    CHECK_EQ(parse_error("// c\n{}"), std::string("line 1, column 1: unexpected character, expected a value"));
    CHECK_EQ(parse_error("\"abc"), std::string("line 1, column 5: unterminated string"));
    CHECK_EQ(parse_error("1e999"), std::string("line 1, column 1: number out of range"));
    std::string deep(200, '[');
    CHECK_EQ(parse_error(deep), std::string("line 1, column 130: nesting deeper than 128 levels"));
}

TEST_CASE(json_writer_escapes_and_round_trips) {
    std::string out;
    const std::string nasty = std::string("q\"b\\n\n\x01\x7f tab\t \xC3\xA9 ") + std::string(1, '\0') + "end";
    json::append_string(out, nasty);
    CHECK_EQ(out, std::string("\"q\\\"b\\\\n\\n\\u0001\\u007f tab\\t \xC3\xA9 \\u0000end\""));
    Value v;
    std::string error;
    CHECK(json::parse(out, &v, &error));
    CHECK_EQ(v.as_string(), nasty);

    // Invalid UTF-8 becomes U+FFFD, so the line stays valid JSON.
    out.clear();
    json::append_string(out, std::string("a\xFF" "b\xC3"));
    CHECK_EQ(out, std::string("\"a\xEF\xBF\xBD" "b\xEF\xBF\xBD\""));
    CHECK(json::parse(out, &v, &error));
}

TEST_CASE(json_writer_numbers) {
    std::string out;
    json::append_double(out, 16.0);
    out.push_back(' ');
    json::append_double(out, 0.1);
    out.push_back(' ');
    json::append_double(out, std::numeric_limits<double>::quiet_NaN());
    out.push_back(' ');
    json::append_double(out, -std::numeric_limits<double>::infinity());
    out.push_back(' ');
    json::append_double(out, 1.5e300);
    out.push_back(' ');
    json::append_int(out, INT64_MIN);
    out.push_back(' ');
    json::append_uint(out, UINT64_MAX);
    CHECK_EQ(out, std::string("16 0.1 null null 1.5e+300 -9223372036854775808 18446744073709551615"));
}
