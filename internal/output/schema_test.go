package output

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// schemaNode is the part of JSON Schema (draft-07) that results_schema.json uses, and
// additionalProperties, which it does not set: draft-07 then allows an object keys its properties
// do not list (gorocprof's replay_pass, stream_id, pmc_group, gorocprof, gorocprof_plan), and the
// validator would say so if the schema ever forbade them.
type schemaNode struct {
	Type       string                 `json:"type"`
	Required   []string               `json:"required"`
	Properties map[string]*schemaNode `json:"properties"`
	Items      *schemaNode            `json:"items"`
	Additional json.RawMessage        `json:"additionalProperties"`
}

// validate returns every place where v breaks the schema's types, misses a required field or has
// a key additionalProperties false forbids.
func validate(s *schemaNode, v any, path string) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, args...)) }
	switch s.Type {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			bad("want an object, got %T", v)
			return errs
		}
		for _, r := range s.Required {
			if _, ok := obj[r]; !ok {
				bad("required field %q missing", r)
			}
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if sub := s.Properties[k]; sub != nil {
				errs = append(errs, validate(sub, obj[k], path+"."+k)...)
			} else if string(s.Additional) == "false" {
				bad("key %q is not in the schema, which allows no other", k)
			}
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			bad("want an array, got %T", v)
			return errs
		}
		if s.Items != nil {
			for i, e := range arr {
				errs = append(errs, validate(s.Items, e, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	case "integer":
		if f, ok := v.(float64); !ok || f != float64(int64(f)) {
			bad("want an integer, got %v", v)
		}
	case "number":
		if _, ok := v.(float64); !ok {
			bad("want a number, got %v", v)
		}
	case "string":
		if _, ok := v.(string); !ok {
			bad("want a string, got %v", v)
		}
	}
	return errs
}

func TestResultsMatchSchema(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "results_schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema schemaNode
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	// A rotation run's file too: its records carry pmc_group, its metadata pmc_group_interval.
	rotation := &Rotation{Interval: 2}
	for _, index := range []int{0, 1} {
		rotation.Plan = append(rotation.Plan, contract.PlanAgent{Index: index, Passes: []contract.PlanPass{{Group: 0}, {Group: 1}, {Group: 2}}})
	}
	for _, tc := range []struct {
		fixture  string
		cs       Counters
		rotation *Rotation
	}{{"4242.ndjson", fakeCounters{}, nil}, {"4300.ndjson", fakeCounters{}, nil}, {"4300.ndjson", nil, nil}, {"rotated 4242.ndjson", fakeCounters{}, rotation}} {
		dir := t.TempDir()
		proc := rotatedFixture(t)
		if tc.rotation == nil {
			proc = readFixture(t, tc.fixture)
		}
		paths, err := Write(Options{Dir: dir, File: "p", Formats: []string{"json"}, KernelTrace: true, Rotation: tc.rotation},
			proc, tc.cs)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: results.json is not valid JSON: %v", tc.fixture, err)
		}
		for _, e := range validate(&schema, doc, "$") {
			t.Errorf("%s: %s", tc.fixture, e)
		}
	}
}

// The validator must notice what it is there to notice.
func TestValidateCatchesMissingFields(t *testing.T) {
	s := &schemaNode{Type: "object", Required: []string{"pid"},
		Properties: map[string]*schemaNode{"pid": {Type: "integer"}}}
	if errs := validate(s, map[string]any{}, "$"); len(errs) != 1 {
		t.Errorf("missing field: got %q", errs)
	}
	if errs := validate(s, map[string]any{"pid": 1.5}, "$"); len(errs) != 1 {
		t.Errorf("non-integer: got %q", errs)
	}
	if errs := validate(s, map[string]any{"pid": 1.0, "extra": 1.0}, "$"); len(errs) != 0 {
		t.Errorf("a key the schema does not list, without additionalProperties: got %q", errs)
	}
	s.Additional = json.RawMessage("false")
	if errs := validate(s, map[string]any{"pid": 1.0, "extra": 1.0}, "$"); len(errs) != 1 {
		t.Errorf("a key additionalProperties false forbids: got %q", errs)
	}
}
