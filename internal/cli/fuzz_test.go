package cli

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// FuzzNormalizeArgs: the argument pre-parser never panics, never changes a word from the `--`
// that ends the options on, and gives its own output back unchanged. The words are the input
// split at newlines.
func FuzzNormalizeArgs(f *testing.F) {
	for _, seed := range []string{
		"--pmc\nA\nB\n--pmc\nC\n--\n./app",
		"--backend\nsim\n--pmc\nA\n--quiet\nfalse\n-d\nout\n--\n./app",
		"--backend\nsim\nplan\n--pmc\nA\nB",
		"compare\n-TM\n--pmc\nA\n--\n./app\n--pmc\nx",
		"-f\n--pmc\nA\n--\n./app",
		"-Tf\njson\ncsv\n-dout\n./app",
		"-d\n--",
		"--kernel-trace\nno\n-T=yes\n--output-format=\n-\nx",
		"avail\n--agent\n-3",
		"merge\nout/\n-f\njson\ncsv\n-d\nx\nb.json",
		"process\n-f\nJSON,csv\nrun\n--\n-f",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		args := strings.Split(in, "\n")
		once, err := normalizeArgs(NewRootCmd(&Factory{}), args)
		if err != nil {
			return
		}
		if end := slices.Index(args, "--"); end >= 0 && !slices.Equal(once[len(once)-(len(args)-end):], args[end:]) {
			t.Fatalf("normalizeArgs(%q) = %q changed what follows --", args, once)
		}
		twice, err := normalizeArgs(NewRootCmd(&Factory{}), once)
		if err != nil || !slices.Equal(once, twice) {
			t.Fatalf("normalizeArgs(%q) = %q, but normalizing that gives %q, %v", args, once, twice, err)
		}
	})
}

// FuzzParseInput: the -i reader never panics; what it accepts is jobs of known keys, and a JSON file
// it accepts is one encoding/json accepts too.
func FuzzParseInput(f *testing.F) {
	for _, seed := range []struct {
		ext  byte
		data string
	}{
		{0, `{"jobs": [{"pmc": ["SQ_WAVES"], "kernel_trace": true}, {"pmc_groups": [["A"], ["B"]]}]}`},
		{0, `{"jobs": [{"pmc": ["A"]}], "jobs": []}`},
		{0, `{"jobs": [{"pmc": ["A"]}]} {}`},
		{0, `{"jobs": [{"output_directory": "a\u00e9", "kernel_iteration_range": 1e3}]}`},
		{1, "jobs:\n  - pmc: [SQ_WAVES]\n    output_directory: out\n"},
		{1, "jobs:\n  - pmc: [A]\n    pmc: [B]\n"},
		{1, "jobs:\n  - &a {pmc: [A]}\n  - *a\n"},
		{2, "pmc: SQ_WAVES SQ_INSTS_VALU\n# comment\npmc: GRBM_COUNT\n"},
	} {
		f.Add(seed.ext, []byte(seed.data))
	}
	exts := []string{".json", ".yaml", ".txt"}
	f.Fuzz(func(t *testing.T, kind byte, data []byte) {
		ext := exts[int(kind)%len(exts)]
		jobs, err := parseInput("in"+ext, ext, data)
		if err != nil {
			if strings.Contains(err.Error(), "interface {}") || strings.Contains(err.Error(), "map[") {
				t.Fatalf("message shows a Go type: %v", err)
			}
			return
		}
		if len(jobs) == 0 {
			t.Fatalf("no jobs and no error for %q", data)
		}
		for _, j := range jobs {
			for k := range j.Values {
				if !jobKeys[k] {
					t.Fatalf("job key %q accepted from %q", k, data)
				}
			}
		}
		if ext == ".json" {
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				t.Fatalf("accepted %q, which encoding/json refuses: %v", data, err)
			}
		}
		again, err := parseInput("in"+ext, ext, data)
		if err != nil || !reflect.DeepEqual(jobs, again) {
			t.Fatalf("a second read of %q differs", data)
		}
	})
}
