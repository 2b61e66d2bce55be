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

	"go.yaml.in/yaml/v3"
)

// Job is one entry of an input file: one run of the application. Keys are option names with '-'
// (the file spells them with '_').
type Job struct {
	Source string
	Values map[string]any
}

// readInputFile reads rocprofv3's -i formats: JSON or YAML `{"jobs": [{...}]}`, or the deprecated
// text form with one `pmc: A B` line per run.
func readInputFile(path string) ([]Job, error) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".json", ".yaml", ".yml", ".txt":
	default:
		return nil, fmt.Errorf("input file %s: unknown extension %q (expected .json, .yaml, .yml or .txt)", path, ext)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading input file: %w", err)
	}
	var raw []map[string]any
	switch ext {
	case ".json":
		raw, err = decodeJobs(path, func(v any) error {
			d := json.NewDecoder(bytes.NewReader(data))
			d.UseNumber()
			return d.Decode(v)
		})
	case ".yaml", ".yml":
		raw, err = decodeJobs(path, func(v any) error { return yaml.Unmarshal(data, v) })
	case ".txt":
		raw, err = parseTextJobs(path, data)
	}
	if err != nil {
		return nil, err
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

func decodeJobs(path string, decode func(any) error) ([]map[string]any, error) {
	var doc struct {
		Jobs []map[string]any `json:"jobs" yaml:"jobs"`
	}
	if err := decode(&doc); err != nil {
		return nil, fmt.Errorf("input file %s: %w", path, err)
	}
	if len(doc.Jobs) == 0 {
		return nil, fmt.Errorf(`input file %s: no jobs (expected {"jobs": [{...}, ...]})`, path)
	}
	return doc.Jobs, nil
}

// parseTextJobs reads the deprecated form: each `pmc:` line is one run collecting that group.
func parseTextJobs(path string, data []byte) ([]map[string]any, error) {
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
			return nil, fmt.Errorf("input file %s line %d: expected \"pmc: COUNTER ...\", got %q", path, n, line)
		}
		jobs = append(jobs, map[string]any{"pmc": strings.TrimSpace(rest)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading input file %s: %w", path, err)
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("input file %s: no \"pmc:\" lines", path)
	}
	return jobs, nil
}

// jobKeys are the input-file keys gorocprof acts on: every profiling option, plus pmc_groups.
var jobKeys = map[string]bool{
	optPMC: true, optPMCGroups: true, optReplayMode: true, optReplayBeta: true, optKernelTrace: true,
	optOutputDir: true, optOutputFile: true, optOutputFormat: true, optIncludeRegex: true,
	optExcludeRegex: true, optIterationRange: true, optTruncate: true, optMangled: true,
	optLogLevel: true, optCacheControl: true, optBackend: true, optQuiet: true, optDryRun: true, optAllowDiverge: true,
	optATT: true, optSPM: true, optPCBeta: true, optPCUnit: true, optPCMethod: true, optPCInterval: true,
}

// unsupportedJobKeys are rocprofv3 input keys (input_schema.json) for services gorocprof does not
// offer yet: harmless when off, an error when asked for.
var unsupportedJobKeys = map[string]bool{
	"pmc-group-interval": true, "hip-trace": true, "hip-runtime-trace": true, "hip-compiler-trace": true,
	"marker-trace": true, "memory-copy-trace": true, "memory-allocation-trace": true,
	"rocdecode-trace": true, "rocjpeg-trace": true, "scratch-memory-trace": true, "stats": true,
	"hsa-trace": true, "hsa-core-trace": true, "hsa-amd-trace": true, "hsa-finalize-trace": true,
	"hsa-image-trace": true, "runtime-trace": true, "sys-trace": true, "list-metrics": true,
	"preload": true, "minimum-output-data": true, "disable-signal-handlers": true,
}

func normalizeJob(src string, values map[string]any) (Job, error) {
	job := Job{Source: src, Values: make(map[string]any, len(values))}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
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
			return Job{}, fmt.Errorf("%s: unknown key %q", src, k)
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
