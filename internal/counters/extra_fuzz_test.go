package counters

import (
	"strings"
	"testing"
)

// FuzzParseExtra: an extra counter file of any bytes is read or refused with a message naming the
// file, never a panic; what is read has a parsed expression in every definition and merges into a
// catalog, or is refused there, without changing that catalog.
func FuzzParseExtra(f *testing.F) {
	f.Add([]byte(extraHead + extraCounter("MY_RATIO", "gfxtest", "100*reduce(SQ_INSTS_VALU,sum)/reduce(SQ_WAVES,sum)")))
	f.Add([]byte(extraHead + extraCounter("MY_A", "gfxtest", "MY_B") + extraCounter("MY_B", "gfxtest", "MY_A")))
	f.Add([]byte(extraHead + extraCounter("SQ_WAVES", "gfxtest", "GRBM_COUNT")))
	f.Add([]byte(extraHead + "  - name: X\n    definitions:\n    - architectures: [gfxtest]\n      block: SQ\n      event: 1\n"))
	f.Add([]byte("rocprofiler-sdk: &a [*a]\n"))
	f.Add([]byte("rocprofiler-sdk:\n  counters-schema-version: 1\n  counters: []\n---\nx: 1\n"))
	f.Add([]byte("\t\x00: ["))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseExtra("f.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, c := range e.Counters {
			for _, d := range c.Definitions {
				if d.ast == nil {
					t.Fatalf("counter %s: a definition without its parsed expression", c.Name)
				}
			}
		}
		cat := extraCatalog(t)
		before := cat.Names()
		merged, err := cat.WithExtra(e)
		if got := cat.Names(); strings.Join(got, " ") != strings.Join(before, " ") {
			t.Fatalf("merging changed the catalog: %v -> %v", before, got)
		}
		if err == nil {
			for _, n := range merged.Names() {
				if _, err := merged.BaseEvents(n); err != nil {
					t.Fatalf("merged counter %s: %v", n, err)
				}
			}
		}
	})
}
