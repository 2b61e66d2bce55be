package querycache

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// TestBoundedEntries: a cache file longer than its limit, or a pass count below one, is a miss (the
// helper is asked), never a hit of whatever the file holds.
func TestBoundedEntries(t *testing.T) {
	dir := t.TempDir()
	helper := filepath.Join(dir, "helper")
	writeFile(t, helper, "#!/bin/sh\n")
	s := At(filepath.Join(dir, "cache"))
	c := chipOf(t, s, helper, "GH100")
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	passesFile := filepath.Join(s.dir, c.base+".passes.json")
	tests := []struct {
		name  string
		limit int64
		body  func(identity string) string
		set   string
	}{
		{"zero passes", entryLimit, func(id string) string { return passesJSON(id, `"a":0`) }, "a"},
		{"negative passes", entryLimit, func(id string) string { return passesJSON(id, `"a":-3`) }, "a"},
		{"longer than the limit", 256, func(id string) string {
			return passesJSON(id, `"a":1,"`+strings.Repeat("x", 300)+`":1`)
		}, "a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := entryLimit
			entryLimit = tc.limit
			defer func() { entryLimit = old }()
			writeFile(t, passesFile, tc.body(c.identity))
			if n, ok := chipOf(t, s, helper, "GH100").Passes(tc.set); ok {
				t.Fatalf("Passes(%q) = %d, a hit; want a miss", tc.set, n)
			}
		})
	}
	old := metricsLimit
	metricsLimit = 64
	defer func() { metricsLimit = old }()
	long := make([]contract.Metric, 10)
	for i := range long {
		long[i] = contract.Metric{Name: fmt.Sprintf("metric_%d", i), Unit: "inst"}
	}
	if err := c.SaveMetrics(long); err != nil {
		t.Fatal(err)
	}
	if _, ok := chipOf(t, s, helper, "GH100").Metrics(); ok {
		t.Fatal("a catalog file longer than its limit is a hit")
	}
}

func passesJSON(identity, entries string) string {
	return fmt.Sprintf(`{"format":%d,"identity":%q,"chip":"GH100","passes":{%s}}`, formatVersion, identity, entries)
}
