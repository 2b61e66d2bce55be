package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gorocprof/gorocprof/internal/boundedread"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// Job is one entry of an input file: one run of the application. Keys are option names with '-'
// (the file spells them with '_').
type Job struct {
	Source string
	Values map[string]any
}

// maxInputBytes bounds an input file (-i): a job list of thousands of jobs is far below it.
const maxInputBytes = 16 << 20

// readInputFile reads rocprofv3's -i formats: JSON or YAML `{"jobs": [{...}]}`, or the deprecated
// text form with one `pmc: A B` line per run.
func readInputFile(path string) ([]Job, error) {
	ext, err := inputKind(path)
	if err != nil {
		return nil, err
	}
	data, err := boundedread.File(path, maxInputBytes)
	if err != nil {
		return nil, fmt.Errorf("reading input file: %w", err)
	}
	return parseInput(path, ext, data)
}

// inputKind returns the extension that says how to read an input file.
func inputKind(path string) (string, error) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".json", ".yaml", ".yml", ".txt":
		return ext, nil
	}
	return "", fmt.Errorf("input file %s: unknown extension %q (expected .json, .yaml, .yml or .txt)", path, ext)
}

// checkInputName is GOROCPROF_INPUT's check: a readable file of a known kind.
func checkInputName(path string) error {
	if _, err := inputKind(path); err != nil {
		return err
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("input file: %w", err)
	}
	return nil
}

// parseInput turns an input file's contents into its jobs; path is for messages only.
func parseInput(path, ext string, data []byte) ([]Job, error) {
	var raw []map[string]any
	var err error
	switch ext {
	case ".json":
		var doc any
		if doc, err = decodeJSON(data); err == nil {
			raw, err = jobsOf(doc)
		}
	case ".yaml", ".yml":
		var doc any
		if doc, err = decodeYAML(data); err == nil {
			raw, err = jobsOf(doc)
		}
	default:
		raw, err = parseTextJobs(data)
	}
	if err != nil {
		return nil, fmt.Errorf("input file %s%w", path, err)
	}
	jobs := make([]Job, 0, len(raw))
	for i, values := range raw {
		src := fmt.Sprintf("job %d of %s", i+1, path)
		job, err := normalizeJob(src, values)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, job)
	}
	return jobs, nil
}

// placeError is an input file error at a place in it; its text starts with what follows the file
// name ("input file F" + " line 3 column 7: ...").
type placeError struct {
	line, col int // 0: the file as a whole, or the whole line
	msg       string
}

func (e *placeError) Error() string {
	switch {
	case e.line > 0 && e.col > 0:
		return fmt.Sprintf(" line %d column %d: %s", e.line, e.col, e.msg)
	case e.line > 0:
		return fmt.Sprintf(" line %d: %s", e.line, e.msg)
	}
	return ": " + e.msg
}

func placeErrorf(line int, format string, args ...any) error {
	return &placeError{line: line, msg: fmt.Sprintf(format, args...)}
}

const expectedJobs = `expected {"jobs": [{...}, ...]}`

// jobsOf checks the document's shape, {"jobs": [{...}, ...]} and nothing else, in the user's words
// rather than Go's types.
func jobsOf(doc any) ([]map[string]any, error) {
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, placeErrorf(0, "the document is %s (%s)", kindOf(doc), expectedJobs)
	}
	for _, k := range sortedKeys(top) {
		if k != "jobs" {
			return nil, placeErrorf(0, "unknown top-level key %q (the only one is \"jobs\")", k)
		}
	}
	list, ok := top["jobs"].([]any)
	switch {
	case top["jobs"] == nil || ok && len(list) == 0:
		return nil, placeErrorf(0, "no jobs (%s)", expectedJobs)
	case !ok:
		return nil, placeErrorf(0, "\"jobs\" is %s (expected a list of job objects)", kindOf(top["jobs"]))
	}
	jobs := make([]map[string]any, 0, len(list))
	for i, e := range list {
		job, ok := e.(map[string]any)
		if !ok {
			return nil, placeErrorf(0, "job %d is %s (expected an object of option keys)", i+1, kindOf(e))
		}
		jobs = append(jobs, job)
	}
	return jobs, nil
}

// kindOf names a decoded value's kind as the file's author wrote it.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case bool:
		return "true or false"
	case string:
		return "a string"
	}
	return "a number" // json.Number, or yaml.v3's int, uint64 and float64
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// parseTextJobs reads the deprecated form: each `pmc:` line is one run collecting that group.
func parseTextJobs(data []byte) ([]map[string]any, error) {
	var jobs []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		rest, ok := strings.CutPrefix(line, "pmc:")
		if !ok {
			return nil, placeErrorf(n, "expected \"pmc: COUNTER ...\", got %q", line)
		}
		jobs = append(jobs, map[string]any{"pmc": strings.TrimSpace(rest)})
	}
	if err := sc.Err(); err != nil {
		return nil, placeErrorf(0, "%v", err)
	}
	if len(jobs) == 0 {
		return nil, placeErrorf(0, "no \"pmc:\" lines (expected one \"pmc: COUNTER ...\" line per run)")
	}
	return jobs, nil
}

// jobKeys are the input-file keys gorocprof acts on: every profiling option, plus pmc_groups and
// pmc_group_interval.
var jobKeys = map[string]bool{
	optPMC: true, optPMCGroups: true, optGroupInterval: true, optExtraCounters: true, optReplayMode: true, optReplayBeta: true, optKernelTrace: true, optStats: true,
	optOutputDir: true, optOutputFile: true, optOutputFormat: true, optIncludeRegex: true,
	optExcludeRegex: true, optIterationRange: true, optTruncate: true, optMangled: true, optAgentIndex: true,
	optLogLevel: true, optCacheControl: true, optGraphProfiling: true, optBackend: true, optROCmRoot: true, optQuiet: true, optDryRun: true, optAllowDiverge: true,
	optMPIRanks: true, optMPIRankVar: true, optMPISizeVar: true,
	optATT: true, optSPM: true, optPCBeta: true, optPCUnit: true, optPCMethod: true, optPCInterval: true,
	optSummary: true, optSummaryPerDomain: true, optSummaryGroups: true, optSummaryOutput: true, optSummaryUnits: true,
	tracing.SysTrace: true, tracing.RuntimeTrace: true, tracing.HIPTrace: true, string(tracing.HIPRuntime): true,
	string(tracing.HIPCompiler): true, string(tracing.HSA): true, string(tracing.Marker): true, string(tracing.MemoryCopy): true,
}

// unsupportedJobKeys are rocprofv3 input keys (input_schema.json) for services gorocprof does not
// offer yet: harmless when off, an error when asked for.
var unsupportedJobKeys = map[string]bool{
	"memory-allocation-trace": true,
	"rocdecode-trace":         true, "rocjpeg-trace": true, "scratch-memory-trace": true,
	"hsa-core-trace": true, "hsa-amd-trace": true, "hsa-finalize-trace": true,
	"hsa-image-trace": true, "list-metrics": true,
	"preload": true, "minimum-output-data": true, "disable-signal-handlers": true,
}

func normalizeJob(src string, values map[string]any) (Job, error) {
	job := Job{Source: src, Values: make(map[string]any, len(values))}
	for _, k := range sortedKeys(values) {
		name := strings.ReplaceAll(strings.ToLower(k), "_", "-")
		v := values[k]
		switch {
		case jobKeys[name]:
			job.Values[name] = v
		case unsupportedJobKeys[name]:
			if isSet(v) {
				return Job{}, fmt.Errorf("%s: %q is not supported by gorocprof yet", src, k)
			}
		default:
			return Job{}, fmt.Errorf("%s: unknown key %q%s", src, k, keySuggestion(name))
		}
	}
	return job, nil
}

// isSet reports whether an input value asks for something: false, 0, "" and empty lists do not.
func isSet(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		return x.String() != "0"
	case int:
		return x != 0
	case float64:
		return x != 0
	case []any:
		return len(x) > 0
	}
	return true
}

// keySuggestion is " (did you mean "x"?)" for the job key nearest to an unknown one, written as
// the file's keys are (with '_'), or "".
func keySuggestion(name string) string {
	best, bestD := "", 3
	for k := range jobKeys {
		if d := editDistance(name, k); d < bestD || (d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", strings.ReplaceAll(best, "-", "_"))
}
