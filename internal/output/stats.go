package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/stats"
)

// StatsSummary is rocprofv3's summary of the traced domains (-S, -D, --summary-groups, -u) and where it
// goes (--summary-output-file).
type StatsSummary struct {
	stats.SummaryOptions
	// File, when set, writes the tables to <prefix>_<File>.txt beside the other files of the prefix
	// (rocprofv3's name for them), without the terminal's indent; otherwise they are printed on To
	// once the files are in place.
	File string
	To   io.Writer
}

// NewStatsSummary is the summary opts asks for (nil for none) and where --summary-output-file to
// sends it: stderr (also for ""), stdout, or the file <prefix>_<to>.txt, to's placeholders expanded
// with vars as the prefix's are.
func NewStatsSummary(opts *stats.SummaryOptions, to string, vars PathVars, stdout, stderr io.Writer) (*StatsSummary, error) {
	if opts == nil {
		return nil, nil
	}
	s := &StatsSummary{SummaryOptions: *opts}
	switch strings.ToLower(to) {
	case "", "stderr":
		s.To = stderr
	case "stdout":
		s.To = stdout
	default:
		name, err := ExpandPath(to, vars)
		if err != nil {
			return nil, fmt.Errorf("--summary-output-file %q: %w", to, err)
		}
		s.File = name
	}
	return s, nil
}

// kernelDomain is the kernel dispatches' domain, named as rocprofv3 names it.
const kernelDomain = "KERNEL_DISPATCH"

// domainStats are the statistics of rocprofv3's domains over some processes: each dispatch one
// call of its kernel timed by its first pass, never by the sum of its passes (under kernel replay
// every pass runs the whole kernel again); each trace line one call of its function (a marker's
// message, a copy's direction), as rocprofv3 counts its records.
type domainStats struct {
	opts    Options
	kernels *stats.Table   // by kernel name, with the kernel trace
	groups  []*stats.Table // by traceGroups, by function; nil for a group without lines
	domains *stats.Table   // a line per domain: KERNEL_DISPATCH and the groups' columns
}

func newDomainStats(opts Options) *domainStats {
	return &domainStats{opts: opts, kernels: &stats.Table{}, groups: make([]*stats.Table, len(traceGroups)), domains: &stats.Table{}}
}

// dispatch counts one call of the dispatch's kernel (of kernels, by id), with the kernel trace.
func (s *domainStats) dispatch(kernels map[uint64]contract.Kernel, l *Dispatch) {
	if len(l.Passes) == 0 || !s.opts.KernelTrace {
		return
	}
	d := l.Passes[0].Record
	s.kernels.Add(KernelName(kernels[d.KernelID], s.opts.Mangled, s.opts.Truncate), d.End-d.Start)
	s.domains.Add(kernelDomain, d.End-d.Start)
}

// trace counts one call of the line's function in its group.
func (s *domainStats) trace(t *contract.Trace) {
	g := traceGroupOf(t.TraceDomain())
	if g < 0 {
		return // Files.Trace hands on no such line
	}
	if s.groups[g] == nil {
		s.groups[g] = &stats.Table{}
	}
	s.groups[g].Add(traceFunction(t), t.End-t.Start)
	s.domains.Add(traceGroups[g].column, t.End-t.Start)
}

// summaryDomains are the domains with lines, in rocprofv3's order (traceGroups'), the kernel
// dispatches' with the kernel trace.
func (s *domainStats) summaryDomains() []stats.Domain {
	var out []stats.Domain
	for i, g := range traceGroups {
		if i == kernelGroupOrder && s.opts.KernelTrace {
			out = append(out, stats.Domain{Name: kernelDomain, Table: s.kernels})
		}
		if s.groups[i] != nil {
			out = append(out, stats.Domain{Name: g.column, Table: s.groups[i]})
		}
	}
	return out
}

// statsSink keeps the statistics of every process of a prefix for --stats (kernel_stats.csv,
// hip_api_stats.csv and the other groups', domain_stats.csv) and the summary.
type statsSink struct {
	*domainStats
	pf   *prefix
	proc *Process
}

// wantsStats: the statistics are kept for --stats and for a summary, of the kernel trace and the
// trace lines.
func wantsStats(o Options) bool {
	return o.Stats || o.Summary != nil && o.Summary.Wanted()
}

func openStats(pf *prefix, opts Options, _ bool) (prefixSink, error) {
	return &statsSink{domainStats: newDomainStats(opts), pf: pf}, nil
}

func (s *statsSink) Begin(p *Process) error { s.proc = p; return nil }

func (s *statsSink) End(error) error { s.proc = nil; return nil }

// Dispatch counts the dispatch's kernel.
func (s *statsSink) Dispatch(l *Dispatch) error { s.dispatch(s.proc.Kernels, l); return nil }

// Trace counts the line's function.
func (s *statsSink) Trace(t *contract.Trace) error { s.trace(t); return nil }

// close writes the stats files (--stats) and the summary file: kernel_stats.csv with the kernel
// trace, a group's file when it has lines, domain_stats.csv when either has.
func (s *statsSink) close() error {
	if s.opts.Stats {
		type file struct {
			suffix string
			t      *stats.Table
		}
		var files []file
		if s.opts.KernelTrace {
			files = append(files, file{"_kernel_stats.csv", s.kernels})
		}
		for i, g := range traceGroups {
			if s.groups[i] != nil {
				files = append(files, file{g.stats, s.groups[i]})
			}
		}
		if s.opts.KernelTrace || s.domains.Len() > 0 {
			files = append(files, file{"_domain_stats.csv", s.domains})
		}
		for _, f := range files {
			o, err := s.pf.create(f.suffix)
			if err != nil {
				return err
			}
			if err := f.t.WriteCSV(o.bg); err != nil {
				return err
			}
		}
	}
	if sum := s.opts.Summary; sum != nil && sum.Wanted() && sum.File != "" {
		o, err := s.pf.create("_" + sum.File + ".txt")
		if err != nil {
			return err
		}
		return stats.WriteSummary(o.bg, s.summaryDomains(), sum.SummaryOptions, false)
	}
	return nil
}

// placed prints the summary on the terminal once the files are in place.
func (s *statsSink) placed() error {
	if sum := s.opts.Summary; sum != nil && sum.Wanted() && sum.File == "" && sum.To != nil {
		return stats.WriteSummary(sum.To, s.summaryDomains(), sum.SummaryOptions, true)
	}
	return nil
}

func (s *statsSink) abort() {}

// summaryObjects are results.json's summary, rocprofv3's: per domain with calls, in its order, the
// statistics of the whole domain and of each name (operations, by name).
func (s *domainStats) summaryObjects() []object {
	out := []object{}
	for _, d := range s.summaryDomains() {
		total, names := d.Table.Stats()
		if total.Calls == 0 {
			continue
		}
		ops := make([]object, len(names))
		for i, n := range names {
			ops[i] = object{{"key", n.Name}, {"value", statObject(n, nil)}}
		}
		out = append(out, object{{"domain", d.Name}, {"stats", statObject(total, ops)}})
	}
	return out
}

// statObject is rocprofv3's serialization of one statistics value, with its operations when ops
// is not nil.
func statObject(st stats.Stat, ops []object) object {
	o := object{{"count", st.Calls}, {"sum", st.Total}, {"sqr", st.SumSquares}, {"min", st.Min}, {"max", st.Max},
		{"mean", number(st.Mean)}, {"stddev", number(st.StdDev)}, {"variance", number(st.Variance)}}
	if ops != nil {
		o = append(o, kv{"operations", ops})
	}
	return o
}
