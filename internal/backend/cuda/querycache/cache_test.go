package querycache

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/gorocprof/gorocprof/internal/contract"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

func chipOf(t *testing.T, s *Store, helper, chip string) *Chip {
	t.Helper()
	c, err := s.Chip(helper, chip)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRoundTripAndIdentity(t *testing.T) {
	dir := t.TempDir()
	helper := filepath.Join(dir, "helper")
	writeFile(t, helper, "#!/bin/sh\n")
	s := At(filepath.Join(dir, "cache"))
	metrics := []contract.Metric{{Name: "sm__inst_executed.sum", Description: "warp instructions", Unit: "inst"}}

	c := chipOf(t, s, helper, "GH100")
	if _, ok := c.Metrics(); ok {
		t.Fatal("an empty cache hit")
	}
	if err := c.SaveMetrics(metrics); err != nil {
		t.Fatal(err)
	}
	if err := c.SavePasses("a,b", 2); err != nil {
		t.Fatal(err)
	}
	// A second gorocprof, which read the file before the first one's answer, keeps both answers.
	other := chipOf(t, s, helper, "GH100")
	if _, ok := other.Passes("a,b"); !ok {
		t.Fatal("a fresh handle does not see the filed answer")
	}
	if err := c.SavePasses("c", 1); err != nil {
		t.Fatal(err)
	}
	if err := other.SavePasses("d", 3); err != nil {
		t.Fatal(err)
	}
	fresh := chipOf(t, s, helper, "GH100")
	for set, want := range map[string]int{"a,b": 2, "c": 1, "d": 3} {
		if n, ok := fresh.Passes(set); !ok || n != want {
			t.Errorf("passes(%s) = %d, %v; want %d", set, n, ok, want)
		}
	}
	if got, ok := fresh.Metrics(); !ok || !reflect.DeepEqual(got, metrics) {
		t.Errorf("metrics = %v, %v", got, ok)
	}

	// Another chip, or another helper, is another identity and sees nothing.
	if _, ok := chipOf(t, s, helper, "GB100").Metrics(); ok {
		t.Error("another chip hit")
	}
	writeFile(t, helper, "#!/bin/sh\n# rebuilt\n")
	rebuilt := chipOf(t, s, helper, "GH100")
	if _, ok := rebuilt.Metrics(); ok {
		t.Error("a rebuilt helper hit the old catalog")
	}
	if _, ok := rebuilt.Passes("a,b"); ok {
		t.Error("a rebuilt helper hit the old pass counts")
	}
}

// Broken or foreign files are misses, and saving replaces them.
func TestDamagedFiles(t *testing.T) {
	dir := t.TempDir()
	helper := filepath.Join(dir, "helper")
	writeFile(t, helper, "x")
	s := At(dir)
	c := chipOf(t, s, helper, "GH100")
	metricsPath := filepath.Join(dir, c.base+".metrics.json")
	passesPath := filepath.Join(dir, c.base+".passes.json")
	for _, text := range []string{"{not json", `{"format":1,"identity":"someone else","metrics":[]}`, `{"format":99,"identity":"` + c.identity + `","metrics":[]}`} {
		writeFile(t, metricsPath, text)
		writeFile(t, passesPath, text)
		c := chipOf(t, s, helper, "GH100")
		if _, ok := c.Metrics(); ok {
			t.Errorf("%s: metrics hit", text)
		}
		if _, ok := c.Passes("a"); ok {
			t.Errorf("%s: passes hit", text)
		}
		if err := c.SavePasses("a", 1); err != nil {
			t.Fatal(err)
		}
		if n, ok := chipOf(t, s, helper, "GH100").Passes("a"); !ok || n != 1 {
			t.Errorf("%s: after saving, passes = %d, %v", text, n, ok)
		}
	}
	left, err := filepath.Glob(filepath.Join(dir, "*.tmp"))
	if err != nil || len(left) != 0 {
		t.Errorf("temporary files left: %v %v", left, err)
	}
}

func TestOffAndNil(t *testing.T) {
	t.Setenv(EnvCache, "off")
	s := Open()
	if s != nil {
		t.Fatalf("off gave a store in %q", s.Dir())
	}
	c, err := s.Chip("/nonexistent", "GH100")
	if c != nil || err != nil {
		t.Fatalf("nil store: %v %v", c, err)
	}
	if _, ok := c.Metrics(); ok {
		t.Error("nil chip hit")
	}
	if err := c.SavePasses("a", 1); err != nil {
		t.Error(err)
	}
	t.Setenv(EnvCache, "/some/dir")
	if got := Open().Dir(); got != "/some/dir" {
		t.Errorf("dir = %q", got)
	}
	if c, err := At(t.TempDir()).Chip("/nonexistent/helper", "GH100"); err == nil {
		t.Errorf("a missing helper fingerprinted: %v", c)
	}
}

// A library the helper loads from LD_LIBRARY_PATH (or its run path) is part of the identity: a
// CUPTI installed over the old one must not answer with the old catalog.
func TestLibrariesInIdentity(t *testing.T) {
	helper := "/bin/true"
	f, err := elf.Open(helper)
	if err != nil {
		t.Skipf("%s is not ELF here: %v", helper, err)
	}
	needed, err := f.ImportedLibraries()
	f.Close()
	if err != nil || len(needed) == 0 {
		t.Skipf("%s needs no shared library here", helper)
	}
	libs := t.TempDir()
	lib := filepath.Join(libs, needed[0])
	writeFile(t, lib, "one")
	t.Setenv("LD_LIBRARY_PATH", libs)
	before, err := identity(At(""), helper, "GH100")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, lib, "another build")
	if err := os.Chtimes(lib, time.Now(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	after, err := identity(At(""), helper, "GH100")
	if err != nil {
		t.Fatal(err)
	}
	if before == after {
		t.Errorf("replacing %s did not change the identity", lib)
	}
	again, err := identity(At(""), helper, "GH100")
	if err != nil || again != after {
		t.Errorf("identity is not stable: %s then %s (%v)", after, again, err)
	}
}

func TestFileSafe(t *testing.T) {
	for in, want := range map[string]string{"GH100": "GH100", "gfx90a:sramecc+": "gfx90a_sramecc_", "a/../b": "a_.._b"} {
		if got := fileSafe(in); got != want {
			t.Errorf("fileSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// What a cache hit costs for the recorded H200 catalog (150,179 metrics): fingerprinting the helper
// and reading the catalog, against about 1.35 s for the helper's own answer on the H200.
func BenchmarkH200CatalogHit(b *testing.B) {
	data, err := os.ReadFile("../../../../testdata/cuda/h200-metrics.json")
	if err != nil {
		b.Fatal(err)
	}
	var reply contract.MetricsReply
	if err := json.Unmarshal(data, &reply); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	helper := filepath.Join(dir, "helper")
	if err := os.WriteFile(helper, make([]byte, 2<<20), 0o755); err != nil {
		b.Fatal(err)
	}
	s := At(dir)
	c, err := s.Chip(helper, reply.Chip)
	if err != nil {
		b.Fatal(err)
	}
	if err := c.SaveMetrics(reply.Metrics); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		c, err := s.Chip(helper, reply.Chip)
		if err != nil {
			b.Fatal(err)
		}
		if m, ok := c.Metrics(); !ok || len(m) != len(reply.Metrics) {
			b.Fatalf("hit %v, %d metrics", ok, len(m))
		}
	}
}

// The catalog file keeps every byte of every field, whatever it holds, and a damaged or foreign file
// is a miss, never a wrong catalog.
func TestMetricsFileRoundTripAndDamage(t *testing.T) {
	metrics := []contract.Metric{
		{Name: "z__last.sum", Description: "plain", Unit: "inst"},
		{Name: "a__tab.sum", Description: "tab\there, newline\nthere, cr\r, backslash \\ and a literal \\t", Unit: ""},
		{Name: "m__unicode.avg", Description: "µs – ünïcödé", Unit: "µs"},
		{Name: "e__empty.max"},
	}
	data := encodeMetrics(metrics, "id-1", "GH100")
	got, err := decodeMetrics(data, "id-1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, metrics) {
		t.Fatalf("round trip:\n%q\nwant\n%q", got, metrics)
	}
	header := bytes.IndexByte(data, '\n') + 1
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"another identity", data, "id-2"},
		{"cut in a line", data[:len(data)-3], "id-1"},
		{"a whole line lost", data[:bytes.LastIndexByte(data[:len(data)-1], '\n')+1], "id-1"},
		{"no header", data[header:], "id-1"},
		{"empty", nil, "id-1"},
		{"a line without its fields", append(append([]byte{}, data[:header]...), []byte("just-a-name\n")...), "id-1"},
		{"a header count beyond any memory", bytes.Replace(data, []byte(`"count":4`), []byte(`"count":9000000000000000000`), 1), "id-1"},
	} {
		if m, err := decodeMetrics(tc.data, tc.want); err == nil {
			t.Errorf("%s: decoded %d metrics, want an error", tc.name, len(m))
		}
	}
	// An empty catalog is a catalog.
	if m, err := decodeMetrics(encodeMetrics(nil, "id-1", "GH100"), "id-1"); err != nil || len(m) != 0 {
		t.Errorf("empty catalog: %v, %v", m, err)
	}
}

// identity is what a store files a chip's answers under, worked out afresh (no memo).
func identity(s *Store, helperPath, chip string) (string, error) {
	d, err := s.helperDigest(helperPath)
	if err != nil {
		return "", err
	}
	return chipIdentity(d, chip), nil
}
