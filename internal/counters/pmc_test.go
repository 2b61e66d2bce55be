package counters

import (
	"reflect"
	"strings"
	"testing"
)

func intp(n int) *int { return &n }

func TestParseGroups(t *testing.T) {
	tests := []struct {
		in   []string
		want []Group
	}{
		{nil, nil},
		{[]string{""}, nil},
		{[]string{" , "}, nil},
		{[]string{"SQ_WAVES"}, []Group{{[]CounterRef{{Name: "SQ_WAVES"}}}}},
		{[]string{"SQ_WAVES SQ_INSTS_VALU"}, []Group{{[]CounterRef{{Name: "SQ_INSTS_VALU"}, {Name: "SQ_WAVES"}}}}},
		{[]string{"B,A, B  A"}, []Group{{[]CounterRef{{Name: "A"}, {Name: "B"}}}}},
		{[]string{"A", "B"}, []Group{{[]CounterRef{{Name: "A"}}}, {[]CounterRef{{Name: "B"}}}}},
		{[]string{"A:device=1 A A:device=0 A:device=1"}, []Group{{[]CounterRef{{Name: "A"}, {"A", intp(0)}, {"A", intp(1)}}}}},
		{[]string{"sm__inst_executed.sum,gpu__time_duration.sum"},
			[]Group{{[]CounterRef{{Name: "gpu__time_duration.sum"}, {Name: "sm__inst_executed.sum"}}}}},
	}
	for _, tt := range tests {
		got, err := ParseGroups(tt.in)
		if err != nil {
			t.Errorf("ParseGroups(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseGroups(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseGroupsErrors(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"A", ""}, "Empty counter group in --pmc flag 2. Each --pmc must specify at least one counter."},
		{[]string{" ", "A"}, "Empty counter group in --pmc flag 1. Each --pmc must specify at least one counter."},
		{[]string{"A", "B", ","}, "Empty counter group in --pmc flag 3. Each --pmc must specify at least one counter."},
		{[]string{"A", "B:gpu=1"}, `--pmc flag 2: counter "B:gpu=1": the only qualifier is :device=N`},
		{[]string{"B:device=-1"}, `--pmc flag 1: counter "B:device=-1": device "-1" is not a non-negative integer`},
		{[]string{"B:device=01"}, `device "01" is not a non-negative integer`},
		{[]string{"B:device="}, `device "" is not a non-negative integer`},
		{[]string{":device=1"}, `counter ":device=1": empty counter name`},
		{[]string{"SQ-WAVES"}, `counter "SQ-WAVES": character '-' is not allowed in a counter name`},
	}
	for _, tt := range tests {
		_, err := ParseGroups(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseGroups(%q) error = %v, want containing %q", tt.in, err, tt.want)
		}
	}
}

// format writes groups back as --pmc values, so that parsing them again must give the same groups.
func format(groups []Group) []string {
	out := make([]string, len(groups))
	for i, g := range groups {
		parts := make([]string, len(g.Counters))
		for j, r := range g.Counters {
			parts[j] = r.String()
		}
		out[i] = strings.Join(parts, ",")
	}
	return out
}

func FuzzParseGroups(f *testing.F) {
	for _, seed := range [][2]string{
		{"SQ_WAVES SQ_INSTS_VALU", "SQ_WAVES,SQ_INSTS_SALU"},
		{"A:device=0 A", ""},
		{"", "B"},
		{"sm__inst_executed.sum", "x:device=12,y"},
		{" , ,", "A:dev=1"},
		{"A\tB\nC", "Z:device=99999999999999999999"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		groups, err := ParseGroups([]string{a, b})
		if err != nil {
			return
		}
		if len(groups) != 2 {
			t.Fatalf("%d groups from 2 occurrences", len(groups))
		}
		for _, g := range groups {
			if len(g.Counters) == 0 {
				t.Fatal("empty group accepted")
			}
			for i, r := range g.Counters {
				if checkName(r.Name) != nil || (r.Device != nil && *r.Device < 0) {
					t.Fatalf("bad reference %+v", r)
				}
				if i > 0 && !refLess(g.Counters[i-1], r) {
					t.Fatalf("group not sorted and unique: %v", g.Counters)
				}
			}
		}
		again, err := ParseGroups(format(groups))
		if err != nil || !reflect.DeepEqual(again, groups) {
			t.Fatalf("round trip of %v: %v, %v", groups, again, err)
		}
	})
}
