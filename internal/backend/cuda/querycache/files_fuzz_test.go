package querycache

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzCacheFiles: a cache file of any content is a hit or a miss, never a panic; a catalog that
// decodes encodes back to the same metrics, and a pass count that is a hit is at least one.
func FuzzCacheFiles(f *testing.F) {
	for _, seed := range []string{
		"{\"format\":1,\"identity\":\"id\",\"chip\":\"GH100\",\"count\":2}\na\tinst\tfirst\nb\t\tsecond \\t tab\n",
		"{\"format\":1,\"identity\":\"id\",\"chip\":\"GH100\",\"count\":1000000000}\na\t\t\n",
		"{\"format\":1,\"identity\":\"id\",\"count\":1}\nno tabs\n",
		"{\"format\":1,\"identity\":\"id\",\"count\":0}\n",
		`{"format":1,"identity":"id","chip":"GH100","passes":{"a":1,"b":0,"c":-1}}`,
		"",
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	helper := filepath.Join(dir, "helper")
	if err := os.WriteFile(helper, []byte("#!/bin/sh\n"), 0o755); err != nil {
		f.Fatal(err)
	}
	s := At(filepath.Join(dir, "cache"))
	c, err := s.Chip(helper, "GH100")
	if err != nil {
		f.Fatal(err)
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if metrics, err := decodeMetrics(data, "id"); err == nil {
			again, err := decodeMetrics(encodeMetrics(metrics, "id", "GH100"), "id")
			if err != nil || !reflect.DeepEqual(again, metrics) {
				t.Fatalf("catalog %q decodes to %v, which encodes and decodes to %v, %v", data, metrics, again, err)
			}
		}
		if err := os.WriteFile(filepath.Join(s.dir, c.base+".passes.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		fresh, _ := s.Chip(helper, "GH100")
		for _, set := range []string{"a", "b", "c"} {
			if n, ok := fresh.Passes(set); ok && n < 1 {
				t.Fatalf("pass count %d of %s is a hit", n, set)
			}
		}
	})
}
