package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"

	"github.com/gorocprof/gorocprof/internal/e2etest"
	"github.com/rogpeppe/go-internal/testscript"
)

// sameRecordsCmd is the testscript command `samerecords A B`: the results.json files A and B hold
// the same counter records, dispatch by dispatch and pass by pass (agent, kernel name, dispatch id,
// replay pass, each counter's values by name), whatever their timestamps, processes, threads and
// the backend's kernel and counter numbering.
// It is how a run of one backend is checked against another's for the same plan.
func sameRecordsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: samerecords A.json B.json")
	}
	a, err := dispatchRecords(ts.MkAbs(args[0]))
	ts.Check(err)
	b, err := dispatchRecords(ts.MkAbs(args[1]))
	ts.Check(err)
	same := reflect.DeepEqual(a, b)
	switch {
	case neg && same:
		ts.Fatalf("%s and %s hold the same %d records", args[0], args[1], len(a))
	case !neg && !same:
		for i := 0; i < len(a) || i < len(b); i++ {
			if i >= len(a) || i >= len(b) || a[i] != b[i] {
				ts.Logf("first difference, record %d:\n%s: %s\n%s: %s", i, args[0], at(a, i), args[1], at(b, i))
				break
			}
		}
		ts.Fatalf("%s (%d records) and %s (%d records) differ", args[0], len(a), args[1], len(b))
	}
}

func at(list []string, i int) string {
	if i < len(list) {
		return list[i]
	}
	return "(none)"
}

// dispatchRecords reads a results.json into one line per counter record, sorted.
func dispatchRecords(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Tool []struct {
			Counters []struct {
				ID struct {
					Handle uint64 `json:"handle"`
				} `json:"id"`
				Name string `json:"name"`
			} `json:"counters"`
			Kernels []struct {
				ID   uint64 `json:"kernel_id"`
				Name string `json:"kernel_name"`
			} `json:"kernel_symbols"`
			Callback struct {
				Counters []struct {
					Dispatch struct {
						Info struct {
							Agent struct {
								Handle uint64 `json:"handle"`
							} `json:"agent_id"`
							Kernel   uint64 `json:"kernel_id"`
							Dispatch uint64 `json:"dispatch_id"`
						} `json:"dispatch_info"`
					} `json:"dispatch_data"`
					Pass    int `json:"replay_pass"`
					Records []struct {
						Counter struct {
							Handle uint64 `json:"handle"`
						} `json:"counter_id"`
						Value float64 `json:"value"`
					} `json:"records"`
				} `json:"counter_collection"`
			} `json:"callback_records"`
		} `json:"rocprofiler-sdk-tool"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []string
	for _, p := range doc.Tool {
		names := map[uint64]string{}
		for _, c := range p.Counters {
			names[c.ID.Handle] = c.Name
		}
		kernels := map[uint64]string{}
		for _, k := range p.Kernels {
			kernels[k.ID] = k.Name
		}
		for _, r := range p.Callback.Counters {
			values := map[string][]float64{}
			for _, v := range r.Records {
				name := names[v.Counter.Handle]
				values[name] = append(values[name], v.Value)
			}
			i := r.Dispatch.Info
			out = append(out, fmt.Sprintf("agent %d kernel %s dispatch %d pass %d: %v", i.Agent.Handle, kernels[i.Kernel], i.Dispatch, r.Pass, values))
		}
	}
	sort.Strings(out)
	return out, nil
}

// rocmFiles are what the rocm scripts need besides the sim's build: the rocm tool library, its
// query helper and the SDK emulator's root, all installed by `make`.
var rocmFiles = []string{"libgorocprof_tool_rocm.so", "gorocprof-query-rocm", "rocm-emulator/lib/librocprofiler-sdk.so"}

// scriptCondition answers the scripts' `[rocm]`: whether the rocm files are built under lib. A
// missing file is an error, failing the script, when e2etest.EnvRequire is set.
func scriptCondition(lib string) func(string) (bool, error) {
	return func(cond string) (bool, error) {
		if cond != "rocm" {
			return false, fmt.Errorf("unknown condition %q", cond)
		}
		for _, f := range rocmFiles {
			if _, err := os.Stat(filepath.Join(lib, f)); err != nil {
				if os.Getenv(e2etest.EnvRequire) != "" {
					return false, fmt.Errorf("the rocm scripts need %s (run `make`): %w", filepath.Join(lib, f), err)
				}
				return false, nil
			}
		}
		return true, nil
	}
}
