package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/replay"
)

// TestPrecedence: flags > GOROCPROF_* environment > input-file job > defaults, option by option.
func TestPrecedence(t *testing.T) {
	type layers struct {
		flag []string          // flags before "--"
		env  map[string]string // GOROCPROF_* variables
		job  string            // the job's JSON object body
	}
	tests := []struct {
		name string
		in   layers
		get  func(replay.Request) any
		want any
	}{
		{"dir default", layers{}, func(r replay.Request) any { return r.OutputDir }, "."},
		{"dir from job", layers{job: `"output_directory": "job"`}, func(r replay.Request) any { return r.OutputDir }, "job"},
		{"dir env over job", layers{env: map[string]string{"GOROCPROF_OUTPUT_DIRECTORY": "env"}, job: `"output_directory": "job"`},
			func(r replay.Request) any { return r.OutputDir }, "env"},
		{"dir flag over env", layers{flag: []string{"-d", "flag"}, env: map[string]string{"GOROCPROF_OUTPUT_DIRECTORY": "env"}, job: `"output_directory": "job"`},
			func(r replay.Request) any { return r.OutputDir }, "flag"},

		{"trace from job", layers{job: `"kernel_trace": true`}, func(r replay.Request) any { return r.KernelTrace }, true},
		{"trace env word over job", layers{env: map[string]string{"GOROCPROF_KERNEL_TRACE": "off"}, job: `"kernel_trace": true`},
			func(r replay.Request) any { return r.KernelTrace }, false},
		{"trace flag over env", layers{flag: []string{"--kernel-trace"}, env: map[string]string{"GOROCPROF_KERNEL_TRACE": "no"}},
			func(r replay.Request) any { return r.KernelTrace }, true},
		{"trace flag false over job", layers{flag: []string{"--kernel-trace=false"}, job: `"kernel_trace": true`},
			func(r replay.Request) any { return r.KernelTrace }, false},

		{"pmc from job", layers{job: `"pmc": ["SQ_WAVES", "GRBM_COUNT"]`}, pmcNames, [][]string{{"GRBM_COUNT", "SQ_WAVES"}}},
		{"pmc groups from job", layers{job: `"pmc_groups": [["B", "C"], ["D"]], "pmc_group_interval": 3`}, pmcNames,
			[][]string{{"B", "C"}, {"D"}}},
		{"pmc env groups over job", layers{flag: []string{"--replay-mode", "kernel", "--kernel-replay-beta-enabled"},
			env: map[string]string{"GOROCPROF_PMC": "X Y;Z"}, job: `"pmc": ["A"]`}, pmcNames, [][]string{{"X", "Y"}, {"Z"}}},
		{"pmc flag over env and job", layers{flag: []string{"--pmc", "F"}, env: map[string]string{"GOROCPROF_PMC": "X"},
			job: `"pmc": ["A"]`}, pmcNames, [][]string{{"F"}}},

		{"formats from job", layers{job: `"output_format": ["csv"]`}, func(r replay.Request) any { return r.Formats }, []string{"csv"}},
		{"formats env over job", layers{env: map[string]string{"GOROCPROF_OUTPUT_FORMAT": "json"}, job: `"output_format": ["csv"]`},
			func(r replay.Request) any { return r.Formats }, []string{"json"}},
		{"formats flag over env", layers{flag: []string{"-f", "csv", "json"}, env: map[string]string{"GOROCPROF_OUTPUT_FORMAT": "json"}},
			func(r replay.Request) any { return r.Formats }, []string{"csv", "json"}},

		{"backend env", layers{env: map[string]string{"GOROCPROF_BACKEND": "sim"}, job: `"backend": "cuda"`},
			func(r replay.Request) any { return r.Backend }, "sim"},
		{"backend flag", layers{flag: []string{"--backend", "cuda"}, env: map[string]string{"GOROCPROF_BACKEND": "sim"}},
			func(r replay.Request) any { return r.Backend }, "cuda"},
		{"log level job", layers{job: `"log_level": "trace"`}, func(r replay.Request) any { return r.LogLevel }, "trace"},
		{"cache control default", layers{}, cacheControl, "all"},
		{"cache control job", layers{job: `"cache_control": "none"`}, cacheControl, "none"},
		{"cache control env over job", layers{env: map[string]string{"GOROCPROF_CACHE_CONTROL": "all"}, job: `"cache_control": "none"`},
			cacheControl, "all"},
		{"cache control flag over env", layers{flag: []string{"--cache-control", "none"}, env: map[string]string{"GOROCPROF_CACHE_CONTROL": "all"}},
			cacheControl, "none"},
		{"graph profiling default", layers{}, graphProfiling, "node"},
		{"graph profiling job", layers{job: `"graph_profiling": "graph"`}, graphProfiling, "graph"},
		{"graph profiling env over job", layers{env: map[string]string{"GOROCPROF_GRAPH_PROFILING": "node"}, job: `"graph_profiling": "graph"`},
			graphProfiling, "node"},
		{"graph profiling flag over env", layers{flag: []string{"--graph-profiling", "graph"}, env: map[string]string{"GOROCPROF_GRAPH_PROFILING": "node"}},
			graphProfiling, "graph"},
		{"rocm root default", layers{env: map[string]string{"ROCM_PATH": ""}}, rocmRoot, "/opt/rocm"},
		{"rocm root from ROCM_PATH", layers{env: map[string]string{"ROCM_PATH": "/opt/rocm-7.0"}}, rocmRoot, "/opt/rocm-7.0"},
		{"rocm root job over ROCM_PATH", layers{env: map[string]string{"ROCM_PATH": "/opt/rocm-7.0"}, job: `"rocm_root": "/job"`}, rocmRoot, "/job"},
		{"rocm root env over job", layers{env: map[string]string{"GOROCPROF_ROCM_ROOT": "/env"}, job: `"rocm_root": "/job"`}, rocmRoot, "/env"},
		{"rocm root flag over env", layers{flag: []string{"--rocm-root", "/flag"}, env: map[string]string{"GOROCPROF_ROCM_ROOT": "/env"}}, rocmRoot, "/flag"},
		{"iteration range env", layers{env: map[string]string{"GOROCPROF_KERNEL_ITERATION_RANGE": "[2-3]"}, job: `"kernel_iteration_range": "[9]"`},
			func(r replay.Request) any { return r.Filters.IterationRanges }, [][2]int64{{2, 3}}},
		{"regex from job", layers{job: `"kernel_include_regex": "axpy"`}, func(r replay.Request) any { return r.Filters.IncludeRegex }, "axpy"},
		{"replay mode from env", layers{flag: []string{"--pmc", "A"}, env: map[string]string{"GOROCPROF_REPLAY_MODE": "kernel", "GOROCPROF_KERNEL_REPLAY_BETA_ENABLED": "1"}},
			func(r replay.Request) any { return r.Mode }, "kernel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			if !strings.HasPrefix(tt.name, "pmc") {
				// A run must collect something: cases about other options collect one counter.
				t.Setenv("GOROCPROF_PMC", "SQ_WAVES")
			}
			for k, v := range tt.in.env {
				t.Setenv(k, v)
			}
			args := append([]string{}, tt.in.flag...)
			if tt.in.job != "" {
				path := filepath.Join(t.TempDir(), "in.json")
				if err := os.WriteFile(path, []byte(`{"jobs": [{`+tt.in.job+`}]}`), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "-i", path)
			}
			rec := &recorder{}
			_, stderr, code := runCLI(t, rec, append(args, "--", "./app")...)
			if code != 0 || len(rec.reqs) != 1 {
				t.Fatalf("exit %d, %d runs, stderr %q", code, len(rec.reqs), stderr)
			}
			if got := tt.get(rec.reqs[0]); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func cacheControl(r replay.Request) any { return r.CacheControl }

func graphProfiling(r replay.Request) any { return r.GraphProfiling }

func rocmRoot(r replay.Request) any { return r.ROCmRoot }

func pmcNames(r replay.Request) any {
	var out [][]string
	for _, g := range r.Groups {
		out = append(out, g.Names())
	}
	return out
}

func TestInputFiles(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	yamlJobs := write("jobs.yaml", "jobs:\n  - pmc: [SQ_WAVES]\n    output_directory: one\n  - pmc: SQ_INSTS_VALU GRBM_COUNT\n    kernel_trace: true\n")
	txtJobs := write("legacy.txt", "# legacy input\npmc: SQ_WAVES SQ_INSTS_VALU  # first run\n\npmc: GRBM_COUNT\n")

	t.Run("yaml jobs run in order", func(t *testing.T) {
		rec := &recorder{}
		_, stderr, code := runCLI(t, rec, "-i", yamlJobs, "--", "./app")
		if code != 0 || len(rec.reqs) != 2 {
			t.Fatalf("exit %d, %d runs, stderr %q", code, len(rec.reqs), stderr)
		}
		if got := pmcNames(rec.reqs[0]); !reflect.DeepEqual(got, [][]string{{"SQ_WAVES"}}) || rec.reqs[0].OutputDir != "one" {
			t.Errorf("job 1: %v in %q", got, rec.reqs[0].OutputDir)
		}
		if got := pmcNames(rec.reqs[1]); !reflect.DeepEqual(got, [][]string{{"GRBM_COUNT", "SQ_INSTS_VALU"}}) || !rec.reqs[1].KernelTrace || rec.reqs[1].OutputDir != "." {
			t.Errorf("job 2: %v trace %v in %q", got, rec.reqs[1].KernelTrace, rec.reqs[1].OutputDir)
		}
	})
	t.Run("text lines are runs", func(t *testing.T) {
		rec := &recorder{}
		_, stderr, code := runCLI(t, rec, "-i", txtJobs, "./app")
		if code != 0 || len(rec.reqs) != 2 {
			t.Fatalf("exit %d, %d runs, stderr %q", code, len(rec.reqs), stderr)
		}
		if a, b := pmcNames(rec.reqs[0]), pmcNames(rec.reqs[1]); !reflect.DeepEqual(a, [][]string{{"SQ_INSTS_VALU", "SQ_WAVES"}}) || !reflect.DeepEqual(b, [][]string{{"GRBM_COUNT"}}) {
			t.Errorf("runs %v %v", a, b)
		}
	})
	t.Run("a failing job does not stop the rest of a sweep", func(t *testing.T) {
		rec := &recorder{result: replay.Result{ExitCode: 4}}
		_, _, code := runCLI(t, rec, "-i", yamlJobs, "./app")
		if code != 1 || len(rec.reqs) != 2 {
			t.Errorf("exit %d after %d runs, want 1 after 2", code, len(rec.reqs))
		}
	})
	t.Run("with --fail-fast a failing job stops the rest", func(t *testing.T) {
		rec := &recorder{result: replay.Result{ExitCode: 4}}
		_, _, code := runCLI(t, rec, "-i", yamlJobs, "--fail-fast", "./app")
		if code != 1 || len(rec.reqs) != 1 {
			t.Errorf("exit %d after %d runs, want 1 after 1", code, len(rec.reqs))
		}
	})

	errs := []struct {
		name, file, want string
	}{
		{"missing file", filepath.Join(dir, "absent.json"), "reading input file: open " + filepath.Join(dir, "absent.json") + ": no such file or directory"},
		{"bad json", write("bad.json", `{"jobs": [`), "input file " + filepath.Join(dir, "bad.json") + ": the file ends before the list opened at line 1 column 10 is closed"},
		{"no jobs", write("empty.yaml", "jobs: []\n"), "input file " + filepath.Join(dir, "empty.yaml") + `: no jobs (expected {"jobs": [{...}, ...]})`},
		{"unknown key", write("typo.json", `{"jobs": [{"pmcs": ["A"]}]}`), "job 1 of " + filepath.Join(dir, "typo.json") + `: unknown key "pmcs" (did you mean "pmc"?)`},
		{"unsupported key", write("hip.yaml", "jobs:\n  - pmc: [A]\n  - memory_allocation_trace: true\n"), "job 2 of " + filepath.Join(dir, "hip.yaml") + `: "memory_allocation_trace" is not supported by gorocprof yet`},
		{"bad text line", write("bad.txt", "pmc: A\ngpu: 0\n"), "input file " + filepath.Join(dir, "bad.txt") + ` line 2: expected "pmc: COUNTER ...", got "gpu: 0"`},
		{"bad value type", write("type.json", `{"jobs": [{"kernel_trace": "sometimes"}]}`),
			"job 1 of " + filepath.Join(dir, "type.json") + `, key "kernel_trace": invalid boolean "sometimes" (use one of y, yes, t, true, on, 1, n, no, f, false, off, 0)`},
		{"job diagnostic names the job", write("kern.json", `{"jobs": [{"pmc": ["A"]}, {"replay_mode": "kernel"}]}`),
			"job 2 of " + filepath.Join(dir, "kern.json") + ": --replay-mode kernel requires acknowledgement that kernel replay is a beta feature via --kernel-replay-beta-enabled"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			_, stderr, code := runCLI(t, rec, "-i", tt.file, "./app")
			if code != 1 || len(rec.reqs) != 0 {
				t.Errorf("exit %d after %d runs, want 1 after none", code, len(rec.reqs))
			}
			if !strings.Contains(stderr, "gorocprof: error: "+tt.want+"\n") {
				t.Errorf("stderr %q, want the line %q", stderr, tt.want)
			}
		})
	}
}
