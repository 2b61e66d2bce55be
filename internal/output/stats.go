package output

import (
	"fmt"
	"io"
	"strings"

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

// kernelDomain is the one domain gorocprof traces, named as rocprofv3 names it.
const kernelDomain = "KERNEL_DISPATCH"

// statsSink times the kernels of every process of a prefix for --stats (kernel_stats.csv,
// domain_stats.csv) and the summary. Each dispatch is one call timed by its first pass, never by
// the sum of its passes: under kernel replay every pass runs the whole kernel again.
type statsSink struct {
	pf      *prefix
	opts    Options
	proc    *Process
	kernels *stats.Table // by kernel name
	domains *stats.Table // the one KERNEL_DISPATCH line
}

// wantsStats: the kernel statistics are kept for --stats and for a summary, both of the kernel trace.
func wantsStats(o Options) bool {
	return o.KernelTrace && (o.Stats || o.Summary != nil && o.Summary.Wanted())
}

func openStats(pf *prefix, opts Options, _ bool) (prefixSink, error) {
	return &statsSink{pf: pf, opts: opts, kernels: &stats.Table{}, domains: &stats.Table{}}, nil
}

func (s *statsSink) Begin(p *Process) error { s.proc = p; return nil }

func (s *statsSink) End(error) error { s.proc = nil; return nil }

// Dispatch counts one call of the dispatch's kernel, timed by its first pass.
func (s *statsSink) Dispatch(l *Dispatch) error {
	if len(l.Passes) == 0 {
		return nil
	}
	d := l.Passes[0].Record
	name := KernelName(s.proc.Kernels[d.KernelID], s.opts.Mangled, s.opts.Truncate)
	s.kernels.Add(name, d.End-d.Start)
	s.domains.Add(kernelDomain, d.End-d.Start)
	return nil
}

// close writes kernel_stats.csv and domain_stats.csv (--stats) and the summary file.
func (s *statsSink) close() error {
	if s.opts.Stats {
		for _, f := range []struct {
			suffix string
			t      *stats.Table
		}{{"_kernel_stats.csv", s.kernels}, {"_domain_stats.csv", s.domains}} {
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

func (s *statsSink) summaryDomains() []stats.Domain {
	return []stats.Domain{{Name: kernelDomain, Table: s.kernels}}
}

func (s *statsSink) abort() {}
