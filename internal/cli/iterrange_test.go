package cli

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseIterationRange(t *testing.T) {
	tests := []struct {
		in   string
		want [][2]int64
	}{
		{"", nil},
		{"   ", nil},
		{"4", [][2]int64{{4, 4}}},
		{"5-8", [][2]int64{{5, 8}}},
		{"[1,2]", [][2]int64{{1, 2}}}, // adjacent single iterations merge
		{"[1, 3, [5-8]]", [][2]int64{{1, 1}, {3, 3}, {5, 8}}},
		{"[5 - 8]", [][2]int64{{5, 8}}},
		{"1,3,5-8", [][2]int64{{1, 1}, {3, 3}, {5, 8}}},
		{"[[10-12], 2, [4-5]]", [][2]int64{{2, 2}, {4, 5}, {10, 12}}},
		{"[3-6, 5-9]", [][2]int64{{3, 9}}},
		{"[7, 7]", [][2]int64{{7, 7}}},
		{"[[1]]", [][2]int64{{1, 1}}},
		{"\t[ 2 ]\n", [][2]int64{{2, 2}}},
	}
	for _, tt := range tests {
		got, err := ParseIterationRange(tt.in)
		if err != nil {
			t.Errorf("ParseIterationRange(%q): unexpected error %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseIterationRange(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseIterationRangeErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"[1, x]", `unexpected "x" at position 5: expected a number or '['`},
		{"[1, 3", "unexpected end at position 6: expected ',' or ']'"},
		{"1,", "unexpected end at position 3: expected a number or '[' after ','"},
		{"[1,]", `unexpected "]" at position 4: expected a number or '[' after ','`},
		{"[]", `"]" at position 2: empty list`},
		{"0", `"0" at position 1: iterations are counted from 1`},
		{"[8-5]", `"8-5" at position 2: range 8-5 ends before it starts`},
		{"5-", "unexpected end at position 3: expected a number after '-'"},
		{"-5", `unexpected "-" at position 1: expected a number or '['`},
		{"1 2", `unexpected "2" at position 3: expected end of the range`},
		{"[1]]", `unexpected "]" at position 4: expected end of the range`},
		{"99999999999999999999", `"99999999999999999999" at position 1: iteration number too large`},
		{"[1;2]", `unexpected ";2" at position 3: expected ',' or ']'`},
		{"1.5", `unexpected ".5" at position 2: expected end of the range`},
		{strings.Repeat("[", 17) + "1" + strings.Repeat("]", 17), "brackets nested deeper than 16"},
	}
	for _, tt := range tests {
		got, err := ParseIterationRange(tt.in)
		if err == nil {
			t.Errorf("ParseIterationRange(%q) = %v, want error containing %q", tt.in, got, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseIterationRange(%q) error %q, want it to contain %q", tt.in, err, tt.want)
		}
	}
}

// FuzzParseIterationRange checks that any input either fails with a positioned message or yields
// sorted, disjoint, non-adjacent, 1-based ranges.
func FuzzParseIterationRange(f *testing.F) {
	for _, s := range []string{"", "4", "5-8", "[1,2]", "[1, 3, [5-8]]", "[[10-12], 2]", "[1, x]", "[8-5]", "0", "[[[1]]]", "9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseIterationRange(s)
		if err != nil {
			if !strings.Contains(err.Error(), "position ") {
				t.Fatalf("ParseIterationRange(%q): error without a position: %v", s, err)
			}
			return
		}
		for i, r := range got {
			if r[0] < 1 || r[1] < r[0] {
				t.Fatalf("ParseIterationRange(%q): bad range %v", s, r)
			}
			if i > 0 && r[0] <= got[i-1][1]+1 {
				t.Fatalf("ParseIterationRange(%q): ranges %v and %v not merged", s, got[i-1], r)
			}
		}
	})
}
