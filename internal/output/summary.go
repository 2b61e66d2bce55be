package output

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

// SummaryNames says how the summary names kernels: as the CSV files do under the same flags.
type SummaryNames struct {
	Mangled  bool // -M
	Truncate bool // -T
}

// rowKey is one summary row: a kernel name on one agent. Agents are told apart by the id the CSV
// files print (Agent_Id) and their name, so that rows of several processes on one machine meet.
type rowKey struct {
	kernel string
	agent  uint64
	name   string
}

// kernelStats accumulates one row's logical dispatches.
type kernelStats struct {
	calls    int
	durSum   float64
	durN     int
	counters map[string]*mean
}

type mean struct {
	sum float64
	n   int
}

// Summary prints one row per kernel name and agent, sorted by name, then agent: CALLS counts
// logical dispatches; each counter column is the mean, over the row's dispatches that collected
// the counter, of the value summed over instances, taken from the lowest pass that collected it
// (passes are never added together). A mean over fewer dispatches than CALLS says over how many;
// an agent without the counter shows "-". MEAN DURATION is over every executed pass. procs should
// hold one Process per profiled process; runs of an application replay must be merged into one
// first, or their dispatches count twice. A Streamed process's dispatches are read again from its
// record file. Warnings, declines and reading problems are the caller's to report (on stderr, once).
func Summary(w io.Writer, procs []*records.Process, cs Counters, names SummaryNames) error {
	stats := map[rowKey]*kernelStats{}
	columns := map[string]bool{}
	for _, proc := range procs {
		if err := summarize(proc, cs, names, stats, columns); err != nil {
			return fmt.Errorf("summary: %w", err)
		}
	}
	keys := slices.SortedFunc(maps.Keys(stats), func(a, b rowKey) int {
		return cmp.Or(cmp.Compare(a.kernel, b.kernel), cmp.Compare(a.agent, b.agent), cmp.Compare(a.name, b.name))
	})
	counterNames := slices.Sorted(maps.Keys(columns))

	header := append([]string{"KERNEL", "AGENT", "CALLS"}, counterNames...)
	header = append(header, "MEAN DURATION (ns)")
	align := make([]tw.Align, len(header))
	for i := range align {
		align[i] = tw.AlignRight
	}
	align[0], align[1] = tw.AlignLeft, tw.AlignLeft
	table := NewTable(w, align)
	table.Header(header)
	partial := false
	for _, key := range keys {
		s := stats[key]
		cells := []string{key.kernel, agentLabel(key.agent, key.name), strconv.Itoa(s.calls)}
		for _, c := range counterNames {
			m := s.counters[c]
			if m == nil || m.n == 0 {
				cells = append(cells, "-")
				continue
			}
			cell := formatMean(m.sum / float64(m.n))
			if m.n < s.calls {
				cell += " (" + strconv.Itoa(m.n) + ")"
				partial = true
			}
			cells = append(cells, cell)
		}
		dur := "-"
		if s.durN > 0 {
			dur = strconv.FormatFloat(s.durSum/float64(s.durN), 'f', 0, 64)
		}
		if err := table.Append(append(cells, dur)); err != nil {
			return fmt.Errorf("summary table: %w", err)
		}
	}
	if _, err := fmt.Fprintln(w, "\nGOROCPROF KERNEL SUMMARY"); err != nil {
		return err
	}
	if err := table.Render(); err != nil {
		return fmt.Errorf("summary table: %w", err)
	}
	if partial {
		if _, err := fmt.Fprintln(w, "(n): the mean of the n calls that collected the counter"); err != nil {
			return err
		}
	}
	return nil
}

// agentLabel names an agent as the CSV files' Agent_Id does, with its name.
func agentLabel(id uint64, name string) string {
	if name == "" {
		return strconv.FormatUint(id, 10)
	}
	return strconv.FormatUint(id, 10) + " " + name
}

func summarize(proc *records.Process, cs Counters, names SummaryNames, stats map[rowKey]*kernelStats, columns map[string]bool) error {
	agents := map[uint64]contract.Agent{}
	for _, a := range proc.Agents {
		agents[a.ID] = a
	}
	eval := evaluator{cs: cs}
	taken := map[string]bool{}
	return proc.EachLogical(func(l records.Logical) error {
		first := l.Passes[0]
		a, known := agents[first.AgentID]
		key := rowKey{kernel: KernelName(proc.Kernels[first.KernelID], names.Mangled, names.Truncate), agent: first.AgentID}
		if known {
			key.agent, key.name = agentNodeID(a), a.Name
		}
		s := stats[key]
		if s == nil {
			s = &kernelStats{counters: map[string]*mean{}}
			stats[key] = s
		}
		s.calls++
		clear(taken)
		for _, d := range l.Passes {
			s.durSum += float64(d.End - d.Start)
			s.durN++
			if !known {
				continue
			}
			// Evaluation failures are Write's to report: the summary shows what could be computed.
			cvs, _ := eval.pass(a.Index, d)
			for _, c := range cvs {
				columns[c.Name] = true
				if taken[c.Name] {
					continue
				}
				taken[c.Name] = true
				m := s.counters[c.Name]
				if m == nil {
					m = &mean{}
					s.counters[c.Name] = m
				}
				m.sum += sum(c.Values)
				m.n++
			}
		}
		return nil
	})
}

// formatMean prints whole numbers as integers and others with six significant digits.
func formatMean(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
