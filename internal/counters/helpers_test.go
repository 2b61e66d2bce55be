package counters

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	goldenfile "github.com/gorocprof/gorocprof/internal/golden"
)

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
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}
