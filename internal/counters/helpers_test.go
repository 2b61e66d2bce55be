package counters

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// synthetic builds an AMD-style catalog from "BLOCK:event" (base) and "=expression" (derived)
// definitions, going through the same resolution as the embedded data.
func synthetic(t *testing.T, limits map[string]int, defs map[string]string) *Catalog {
	t.Helper()
	c := newCatalog("gfxtest", "gfxtest", VendorAMD)
	c.limits = limits
	for name, d := range defs {
		k := &counter{name: name, description: "test counter " + name}
		if expr, ok := strings.CutPrefix(d, "="); ok {
			ast, err := ParseExpression(expr)
			if err != nil {
				t.Fatalf("counter %s: %v", name, err)
			}
			k.expression, k.ast = expr, ast
		} else {
			block, ev, _ := strings.Cut(d, ":")
			n, err := strconv.Atoi(ev)
			if err != nil {
				t.Fatalf("counter %s: bad definition %q", name, d)
			}
			k.base = &Base{Name: name, Block: block, Event: n}
		}
		c.add(k)
	}
	c.resolve()
	c.dropOverLimit()
	c.finish()
	return c
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from the output (run go test -update to accept):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
