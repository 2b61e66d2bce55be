package counters

import (
	"reflect"
	"testing"
)

func TestScopeOf(t *testing.T) {
	for _, tc := range []struct {
		pmc   []string
		agent int
		names []string
		sets  [][]string
		key   string
	}{
		{nil, 0, []string{}, nil, ""},
		{[]string{"b.sum a.sum", "a.sum"}, 0, []string{"a.sum", "b.sum"}, [][]string{{"a.sum", "b.sum"}, {"a.sum"}}, "a.sum,b.sum;a.sum,b.sum;a.sum"},
		{[]string{"a.sum b.sum:device=1", "c.sum:device=1"}, 0, []string{"a.sum"}, [][]string{{"a.sum"}}, "a.sum;a.sum"},
		{[]string{"a.sum b.sum:device=1", "c.sum:device=1"}, 1, []string{"a.sum", "b.sum", "c.sum"}, [][]string{{"a.sum", "b.sum"}, {"c.sum"}}, "a.sum,b.sum,c.sum;a.sum,b.sum;c.sum"},
		{[]string{"a.sum a.sum:device=0"}, 0, []string{"a.sum"}, [][]string{{"a.sum"}}, "a.sum;a.sum"},
	} {
		groups, err := ParseGroups(tc.pmc)
		if err != nil {
			t.Fatal(err)
		}
		s := ScopeOf(groups, tc.agent)
		if !reflect.DeepEqual(s.Names, tc.names) || !reflect.DeepEqual(s.Sets, tc.sets) || s.Key() != tc.key {
			t.Errorf("ScopeOf(%q, %d) = %q %q key %q; want %q %q key %q", tc.pmc, tc.agent, s.Names, s.Sets, s.Key(), tc.names, tc.sets, tc.key)
		}
	}
	if (*Scope)(nil).Key() != "*" {
		t.Error("the nil scope's key")
	}
}

func TestCommonScope(t *testing.T) {
	for _, tc := range []struct {
		pmc  []string
		want []string // nil: no common scope
	}{
		{nil, nil},
		{[]string{"b.sum a.sum", "c.sum"}, []string{"a.sum", "b.sum", "c.sum"}},
		{[]string{"a.sum", "b.sum:device=1"}, nil},
	} {
		groups, err := ParseGroups(tc.pmc)
		if err != nil {
			t.Fatal(err)
		}
		s := CommonScope(groups)
		if (s == nil) != (tc.want == nil) || (s != nil && !reflect.DeepEqual(s.Names, tc.want)) {
			t.Errorf("CommonScope(%q) = %+v, want names %q", tc.pmc, s, tc.want)
		}
	}
}
