package jsonerr

import (
	"encoding/json"
	"strings"
	"testing"
)

type inner struct {
	PID int64 `json:"pid"`
}

type doc struct {
	In   inner    `json:"inner"`
	List []uint32 `json:"list"`
}

func TestDescribeNamesNoGoType(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"inner":{"pid":"x"}}`, "field inner.pid is a string, expected a whole number of 64 bits"},
		{`{"inner":[1]}`, "field inner is an array, expected an object"},
		{`"s"`, "the value is a string, expected an object"},
		{`{"list":[1,-2]}`, "field list is a number -2, expected a non-negative whole number of 32 bits"},
	} {
		var d doc
		err := Describe(json.Unmarshal([]byte(tt.in), &d))
		if err == nil || err.Error() != tt.want || strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "jsonerr.") {
			t.Errorf("%s: %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestCheckKeys(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"a":1,"b":{"c":[{"d":1,"d":2}]}}`, `key "d" given twice in the object b.c[0]`},
		{`{"a":1,"a":2}`, `key "a" given twice in the object at the top`},
		{`{"a":{"x":1},"b":{"x":1}}`, ""},
	} {
		err := CheckKeys([]byte(tt.in))
		if (tt.want == "" && err != nil) || (tt.want != "" && (err == nil || err.Error() != tt.want)) {
			t.Errorf("%s: %v, want %q", tt.in, err, tt.want)
		}
	}
}
