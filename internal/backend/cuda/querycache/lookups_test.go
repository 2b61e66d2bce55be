package querycache

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// Metrics looked up one run at a time add up in their own file: they serve a later run of those metrics
// only, never as the chip's catalog, and another helper's identity does not read them.
func TestLookupsAreKeptApartFromTheCatalog(t *testing.T) {
	dir := t.TempDir()
	helper := filepath.Join(dir, "helper")
	writeFile(t, helper, "#!/bin/sh\n")
	s := At(filepath.Join(dir, "cache"))
	a := contract.Metric{Name: "a.sum", Description: "a\tdescription", Unit: "inst"}
	b := contract.Metric{Name: "b.sum", Description: "b", Unit: ""}

	c := chipOf(t, s, helper, "GH100")
	if err := c.SaveLookups([]contract.Metric{a}); err != nil {
		t.Fatal(err)
	}
	if err := chipOf(t, s, helper, "GH100").SaveLookups([]contract.Metric{b}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		names []string
		want  []contract.Metric
		ok    bool
	}{
		{[]string{"b.sum", "a.sum"}, []contract.Metric{b, a}, true},
		{[]string{"a.sum"}, []contract.Metric{a}, true},
		{[]string{"a.sum", "c.sum"}, nil, false},
		{[]string{}, []contract.Metric{}, true},
	} {
		got, ok := chipOf(t, s, helper, "GH100").Lookup(tc.names)
		if ok != tc.ok || (ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v, %v", tc.names, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := c.Metrics(); ok {
		t.Error("looked-up metrics were served as the whole catalog")
	}
	if _, ok := chipOf(t, s, helper, "GH101").Lookup([]string{"a.sum"}); ok {
		t.Error("another chip's lookups hit")
	}
	writeFile(t, helper, "#!/bin/sh\n# rebuilt\n")
	if _, ok := chipOf(t, s, helper, "GH100").Lookup([]string{"a.sum"}); ok {
		t.Error("another helper's lookups hit")
	}
	var nilChip *Chip
	if _, ok := nilChip.Lookup([]string{"a.sum"}); ok || nilChip.SaveLookups([]contract.Metric{a}) != nil {
		t.Error("a cache that is off")
	}
	// A damaged file is a miss, and the next answer replaces it.
	c = chipOf(t, s, helper, "GH100")
	path := filepath.Join(s.Dir(), c.base+lookupsSuffix)
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Lookup([]string{"a.sum"}); ok {
		t.Error("a damaged file hit")
	}
	if err := c.SaveLookups([]contract.Metric{a}); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Lookup([]string{"a.sum"}); !ok || got[0] != a {
		t.Errorf("after a damaged file: %+v, %v", got, ok)
	}
}

// Before the agents are known, Answers says whether any chip's entry of this helper would answer a
// catalog of the names: a whole catalog answers any, metrics looked up only those looked up.
func TestAnswersBeforeTheChipIsKnown(t *testing.T) {
	dir := t.TempDir()
	helper := filepath.Join(dir, "helper")
	writeFile(t, helper, "#!/bin/sh\n")
	s := At(filepath.Join(dir, "cache"))
	a := contract.Metric{Name: "a.sum", Description: "a"}
	steps := []struct {
		do    func() error
		names []string
		want  bool
	}{
		{nil, []string{"a.sum"}, false},
		{func() error { return chipOf(t, s, helper, "GH100").SaveLookups([]contract.Metric{a}) }, []string{"a.sum"}, true},
		{nil, []string{"a.sum", "b.sum"}, false},
		{func() error { return chipOf(t, s, helper, "GB100").SaveMetrics([]contract.Metric{a}) }, []string{"a.sum", "b.sum"}, true},
		{func() error { writeFile(t, helper, "#!/bin/sh\n# rebuilt\n"); return nil }, []string{"a.sum"}, false},
	}
	for i, st := range steps {
		if st.do != nil {
			if err := st.do(); err != nil {
				t.Fatal(err)
			}
		}
		if got := s.Answers(helper, st.names); got != st.want {
			t.Errorf("step %d: Answers(%q) = %v, want %v", i, st.names, got, st.want)
		}
	}
	if (*Store)(nil).Answers(helper, []string{"a.sum"}) {
		t.Error("a cache that is off answers")
	}
}
