package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestParseInputErrors: an input file's mistakes are refused with the file, the place and what was
// expected, in the author's words (never a Go type).
func TestParseInputErrors(t *testing.T) {
	tests := []struct{ ext, data, want string }{
		// The shape of the document.
		{".json", `{"jobs": {}}`, `input file F: "jobs" is an object (expected a list of job objects)`},
		{".json", `{"jobs": "SQ_WAVES"}`, `input file F: "jobs" is a string (expected a list of job objects)`},
		{".json", `{"jobs": [1]}`, `input file F: job 1 is a number (expected an object of option keys)`},
		{".json", `{"jobs": [{"pmc": ["A"]}, null]}`, `input file F: job 2 is null (expected an object of option keys)`},
		{".json", `[{"pmc": ["A"]}]`, `input file F: the document is a list (expected {"jobs": [{...}, ...]})`},
		{".json", `{"jobs": []}`, `input file F: no jobs (expected {"jobs": [{...}, ...]})`},
		{".json", `{}`, `input file F: no jobs (expected {"jobs": [{...}, ...]})`},
		{".json", "  \n", `input file F: the file is empty (expected {"jobs": [{...}, ...]})`},
		{".json", `{"jobs": [{"pmc": ["A"]}], "job": []}`, `input file F: unknown top-level key "job" (the only one is "jobs")`},
		// Duplicate keys and trailing text, which encoding/json alone accepts.
		{".json", `{"jobs": [{"pmc": ["A"]}], "jobs": []}`, `input file F line 1 column 28: duplicate key "jobs" (each key may appear once in an object)`},
		{".json", "{\"jobs\": [{\"pmc\": [\"A\"],\n  \"pmc\": [\"B\"]}]}", `input file F line 2 column 3: duplicate key "pmc" (each key may appear once in an object)`},
		{".json", "{\"jobs\": [{\"pmc\": [\"A\"]}]}\n{}", `input file F line 2 column 1: text after the end of the JSON document (expected the end of the file)`},
		{".json", `{"jobs": [{"pmc": ["A"]}]}}`, `input file F line 1 column 27: text after the end of the JSON document (expected the end of the file)`},
		{".json", `{"jobs": [{"pmc": ["A"]}]} x`, `input file F line 1 column 28: text after the end of the JSON document (expected the end of the file)`},
		// Syntax: the place of the token that could not be read.
		{".json", "{\"jobs\": [\n{\"pmc\": tru}]}", `input file F line 2 column 9: invalid character '}' in literal true (expecting 'e')`},
		{".json", `{"jobs": [{"pmc" 1}]}`, `input file F line 1 column 18: invalid character '1' after object key`},
		{".json", `{"jobs": [{"pmc": ["A"]}]`, `input file F: the file ends before the object opened at line 1 column 1 is closed`},
		{".json", `{"jobs": [{"pmc": "A"`, `input file F: the file ends before the object opened at line 1 column 11 is closed`},
		{".json", `{"jobs": [`, `input file F: the file ends before the list opened at line 1 column 10 is closed`},
		// YAML: the same shape; yaml.v3 refuses a key given twice, a second document is refused here.
		{".yaml", "jobs:\n  - pmc: [A]\n    pmc: [B]\n", `input file F line 3: mapping key "pmc" already defined at line 2`},
		{".yaml", "jobs:\n  - pmc: [A]\njobs: []\n", `input file F line 3: mapping key "jobs" already defined at line 1`},
		{".yaml", "jobs:\n  - pmc: [A]\n---\njobs: []\n", `input file F line 3: a second YAML document (expected one document, {"jobs": [{...}, ...]})`},
		{".yaml", "jobs:\n  - pmc: [A]\nextra: 1\n", `input file F: unknown top-level key "extra" (the only one is "jobs")`},
		{".yaml", "jobs: {pmc: A}\n", `input file F: "jobs" is an object (expected a list of job objects)`},
		{".yaml", "jobs:\n  - [A]\n", `input file F: job 1 is a list (expected an object of option keys)`},
		{".yaml", "jobs:\n  - 1: A\n", `job 1 of F: unknown key "1"`},
		{".yaml", "jobs:\n  - pmc: [A]\n  bad\n", `input file F line 3: could not find expected ':'`},
		{".yaml", "{[]: x}\n", `input file F: a key is a list or a mapping (expected a name)`},
		{".yaml", "", `input file F: the file is empty (expected {"jobs": [{...}, ...]})`},
		{".txt", "# nothing\n", `input file F: no "pmc:" lines (expected one "pmc: COUNTER ..." line per run)`},
		{".txt", "pmc: A\ngpu: 0\n", `input file F line 2: expected "pmc: COUNTER ...", got "gpu: 0"`},
	}
	for _, tt := range tests {
		_, err := parseInput("F", tt.ext, []byte(tt.data))
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s %q:\n got %v\nwant %s", tt.ext, tt.data, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "interface") {
			t.Errorf("%s %q: the message shows a Go type: %v", tt.ext, tt.data, err)
		}
	}
}

func TestParseInputJobs(t *testing.T) {
	json := `{"jobs": [{"pmc": ["SQ_WAVES"], "kernel_trace": true, "output_directory": "a"}, {"pmc_groups": [["A"], ["B"]], "kernel_iteration_range": 3}]}`
	yaml := "jobs:\n  - pmc: [SQ_WAVES]\n    kernel_trace: true\n    output_directory: a\n  - pmc_groups: [[A], [B]]\n    kernel_iteration_range: 3\n"
	fromJSON, err := parseInput("in.json", ".json", []byte(json))
	if err != nil {
		t.Fatal(err)
	}
	fromYAML, err := parseInput("in.yaml", ".yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	if len(fromJSON) != 2 || len(fromYAML) != 2 {
		t.Fatalf("%d and %d jobs, want 2 and 2", len(fromJSON), len(fromYAML))
	}
	for i := range fromJSON {
		// JSON numbers stay json.Numbers and YAML's are ints; both read as the same option text.
		j, y := fromJSON[i].Values, fromYAML[i].Values
		if len(j) != len(y) || fromJSON[i].Source != fmt.Sprintf("job %d of in.json", i+1) {
			t.Errorf("job %d: %v (%s) and %v", i+1, j, fromJSON[i].Source, y)
		}
		for k := range j {
			if !reflect.DeepEqual(stringsOf(j[k]), stringsOf(y[k])) {
				t.Errorf("job %d key %s: %#v and %#v", i+1, k, j[k], y[k])
			}
		}
	}
}

// stringsOf prints the scalars of a decoded value, so that json.Number("3") and 3 compare equal.
func stringsOf(v any) any {
	if list, ok := v.([]any); ok {
		out := make([]any, len(list))
		for i, e := range list {
			out[i] = stringsOf(e)
		}
		return out
	}
	return fmt.Sprint(v)
}

// TestInputValueMessages: a value of the wrong kind is named by its kind, never printed as Go
// prints a map or a slice.
func TestInputValueMessages(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	tests := []struct{ name, body, want string }{
		{"in.json", `{"jobs": [{"output_directory": {"a": 1}}]}`, `key "output_directory": expected a string, got an object`},
		{"in.json", `{"jobs": [{"kernel_trace": [true]}]}`, `key "kernel_trace": expected true or false, got a list`},
		{"in.json", `{"jobs": [{"pmc": [["SQ_WAVES"]]}]}`, `key "pmc": expected a list of names, found a list`},
		{"in.json", `{"jobs": [{"pmc_groups": {"a": ["SQ_WAVES"]}}]}`, `key "pmc_groups": expected a list of counter lists, got an object`},
		{"in.yaml", "jobs:\n  - output_format: {csv: 1}\n", `key "output_format": expected a name or a list of names, got an object`},
		{"in.yaml", "jobs:\n  - kernel_trace: 2024-01-31\n", `key "kernel_trace": invalid boolean "2024-01-31"`},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := runCLI(t, &recorder{}, "-i", path, "--", "./app")
		want := "gorocprof: error: job 1 of " + path + ", " + tt.want
		if code != 1 || !strings.HasPrefix(stderr, want) || strings.Contains(stderr, "map[") {
			t.Errorf("%s: exit %d, stderr %q, want the line %q", tt.body, code, stderr, want)
		}
	}
}

// TestYAMLDatesAreNames: an unquoted date in YAML is the text written, as JSON would have it.
func TestYAMLDatesAreNames(t *testing.T) {
	jobs, err := parseInput("in.yaml", ".yaml", []byte("jobs:\n  - output_directory: 2024-01-31\n    output_file: 2024-01-31T10:00:00Z\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := jobs[0].Values; got["output-directory"] != "2024-01-31" || got["output-file"] != "2024-01-31T10:00:00Z" {
		t.Errorf("values %#v", got)
	}
}
