// Package output turns the records of one profiled process into rocprofv3-compatible files
// (results.json, CSV) and terminal tables.
package output

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

// Options says which files Write produces and how names look.
type Options struct {
	Dir          string   // output directory (-d)
	File         string   // file prefix inside Dir, placeholders already expanded (-o)
	Formats      []string // "json" and/or "csv"
	KernelTrace  bool     // also write kernel dispatch timing (--kernel-trace)
	Mangled      bool     // kernel names as mangled symbols (-M)
	Truncate     bool     // kernel names without template and argument lists (-T)
	PlanMetadata any      // embedded in results.json metadata as "gorocprof_plan"
	Command      []string // the profiled command line; the record header's when empty
}

// Formats Write can produce.
var Formats = []string{"csv", "json"}

// Write writes one process's files under Dir and returns their paths. Counter values that could not
// be computed (a derived counter whose base values are missing) are left out and reported in the
// returned error after everything else has been written; cs may be nil when nothing was counted.
func Write(opts Options, proc *records.Process, cs Counters) ([]string, error) {
	want := map[string]bool{}
	for _, f := range opts.Formats {
		switch f {
		case "json", "csv":
			want[f] = true
		default:
			return nil, fmt.Errorf("output format %q: this writer produces %v", f, Formats)
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	prefix := filepath.Join(opts.Dir, opts.File)
	if err := os.MkdirAll(filepath.Dir(prefix+"_"), 0o755); err != nil {
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	v := newView(opts, proc, cs)
	type file struct {
		suffix string
		write  func(*bufio.Writer) error
	}
	var files []file
	if want["json"] {
		files = append(files, file{"_results.json", v.writeResults})
	}
	if want["csv"] {
		files = append(files, file{"_agent_info.csv", v.writeAgentInfo})
		if cs != nil {
			files = append(files, file{"_counter_collection.csv", v.writeCounterCSV})
		}
		if opts.KernelTrace {
			files = append(files, file{"_kernel_trace.csv", v.writeKernelTraceCSV})
		}
	}
	var paths []string
	for _, f := range files {
		path := prefix + f.suffix
		if err := writeFile(path, f.write); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, v.evalError()
}

func writeFile(path string, write func(*bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// view is one process prepared for writing: passes in (dispatch_id, pass) order with their counter
// values computed once for every file.
type view struct {
	opts    Options
	proc    *records.Process
	agents  map[uint64]contract.Agent
	cat     *catalog
	passes  []passView
	errs    []error
	command []string
}

type passView struct {
	d        *contract.Dispatch
	kernel   contract.Kernel
	counters []counterValues
}

func newView(opts Options, proc *records.Process, cs Counters) *view {
	v := &view{opts: opts, proc: proc, agents: map[uint64]contract.Agent{}, cat: buildCatalog(proc, cs)}
	for _, a := range proc.Agents {
		v.agents[a.ID] = a
	}
	v.command = opts.Command
	if len(v.command) == 0 {
		v.command = proc.Header.Cmdline
	}
	for _, l := range records.Group(proc.Dispatches) {
		for _, d := range l.Passes {
			pv := passView{d: d, kernel: proc.Kernels[d.KernelID]}
			if a, ok := v.agents[d.AgentID]; ok {
				var errs []error
				pv.counters, errs = passCounters(cs, a.Index, d)
				v.errs = append(v.errs, errs...)
			}
			pv.counters = v.known(pv.counters, d.AgentID)
			v.passes = append(v.passes, pv)
		}
	}
	return v
}

// known drops counters the catalog has no id for, so that JSON and CSV always agree.
func (v *view) known(cvs []counterValues, agentID uint64) []counterValues {
	out := cvs[:0]
	for _, c := range cvs {
		if _, ok := v.cat.ids[catalogKey{agentID, c.Name}]; ok {
			out = append(out, c)
		}
	}
	return out
}

func (v *view) evalError() error {
	if len(v.errs) == 0 {
		return nil
	}
	const show = 10
	errs := v.errs
	if len(errs) > show {
		errs = append(errs[:show:show], fmt.Errorf("and %d more", len(v.errs)-show))
	}
	return fmt.Errorf("pid %d: some counter values were not written: %w", v.proc.Header.PID, errors.Join(errs...))
}

// kernelName picks the flavour the user asked for. -M wins over -T, as truncating a mangled name
// leaves it unchanged.
func kernelName(k contract.Kernel, mangled, truncate bool) string {
	switch {
	case mangled && k.Name != "":
		return k.Name
	case truncate && k.Truncated != "":
		return k.Truncated
	case k.Demangled != "":
		return k.Demangled
	}
	return k.Name
}

func (v *view) kernelName(k contract.Kernel) string {
	return kernelName(k, v.opts.Mangled, v.opts.Truncate)
}

func sortedKernels(proc *records.Process) []contract.Kernel {
	ks := make([]contract.Kernel, 0, len(proc.Kernels))
	for _, k := range proc.Kernels {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].KernelID < ks[j].KernelID })
	return ks
}
