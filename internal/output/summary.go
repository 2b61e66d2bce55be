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

// Summary prints the summary of procs: Stream of each through one SummarySink, then its Print.
// procs should hold one Process per profiled process; runs of an application replay must be merged
// into one first, or their dispatches count twice.
func Summary(w io.Writer, procs []*records.Process, cs Counters, names SummaryNames) error {
	s := NewSummary(names)
	for _, proc := range procs {
		if err := Stream(proc, cs, s); err != nil {
			return fmt.Errorf("summary: %w", err)
		}
	}
	return s.Print(w)
}

// SummarySink adds up the processes streamed through it into the summary table, which Print
// prints once at the end.
type SummarySink struct {
	names   SummaryNames
	stats   map[rowKey]*kernelStats
	columns map[string]bool
	proc    *records.Process
	taken   map[string]bool
}

// NewSummary returns an empty summary that names kernels as names says.
func NewSummary(names SummaryNames) *SummarySink {
	return &SummarySink{names: names, stats: map[rowKey]*kernelStats{}, columns: map[string]bool{}, taken: map[string]bool{}}
}

// Begin starts a process.
func (s *SummarySink) Begin(p *Process) error {
	s.proc = p.Process
	return nil
}

// End ends a process.
func (s *SummarySink) End(failed error) error { return failed }

// Print prints one row per kernel name and agent, sorted by name, then agent: CALLS counts
// logical dispatches; each counter column is the mean, over the row's dispatches that collected
// the counter, of the value summed over instances, taken from the lowest pass that collected it
// (passes are never added together). A mean over fewer dispatches than CALLS says over how many;
// an agent without the counter shows "-". MEAN DURATION is over every executed pass. Warnings,
// declines and reading problems are the caller's to report (on stderr, once).
func (s *SummarySink) Print(w io.Writer) error {
	stats, columns := s.stats, s.columns
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
	var rows [][]string
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
		rows = append(rows, append(cells, dur))
	}
	width := TerminalWidth(w)
	cut := fitColumn(header, rows, 0, width)
	table := NewTable(w, align)
	table.Header(header)
	for _, r := range rows {
		if err := table.Append(r); err != nil {
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
	if cut > 0 {
		if _, err := fmt.Fprintln(w, cutNote(cut, width, s.names.Truncate)); err != nil {
			return err
		}
	}
	return nil
}

// cutNote says that kernel names were cut to the terminal, where they are whole, and how to get
// shorter ones.
func cutNote(chars, width int, truncated bool) string {
	note := fmt.Sprintf("(kernel names cut to %d characters for %d columns; the output files have them whole", chars, width)
	if !truncated {
		note += "; -T drops their template and argument lists"
	}
	return note + ")"
}

// agentLabel names an agent by its number in the files (contract.Agent.LogicalNodeID, the CSV
// files' Agent_Id by default), with its name.
func agentLabel(id uint64, name string) string {
	if name == "" {
		return strconv.FormatUint(id, 10)
	}
	return strconv.FormatUint(id, 10) + " " + name
}

// Dispatch adds one logical dispatch to its row.
func (s *SummarySink) Dispatch(l *Dispatch) error {
	first := &l.Passes[0]
	key := rowKey{kernel: KernelName(s.proc.Kernels[first.Record.KernelID], s.names.Mangled, s.names.Truncate), agent: first.Record.AgentID}
	if a := first.Agent; a != nil {
		key.agent, key.name = uint64(a.LogicalNodeID()), a.Name
	}
	st := s.stats[key]
	if st == nil {
		st = &kernelStats{counters: map[string]*mean{}}
		s.stats[key] = st
	}
	st.calls++
	clear(s.taken)
	for i := range l.Passes {
		p := &l.Passes[i]
		st.durSum += float64(p.Record.End - p.Record.Start)
		st.durN++
		// Evaluation failures are the files' to report: the summary shows what could be computed.
		for _, c := range p.Counters {
			s.columns[c.Name] = true
			if s.taken[c.Name] {
				continue
			}
			s.taken[c.Name] = true
			m := st.counters[c.Name]
			if m == nil {
				m = &mean{}
				st.counters[c.Name] = m
			}
			m.sum += sum(c.Values)
			m.n++
		}
	}
	return nil
}

// formatMean prints whole numbers as integers and others with six significant digits.
func formatMean(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
