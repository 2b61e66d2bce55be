package output

import (
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/gorocprof/gorocprof/internal/records"
)

// kernelStats accumulates one kernel's logical dispatches.
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

// Summary prints one row per kernel name (demangled), sorted by name: CALLS counts logical
// dispatches; each counter column is the mean over dispatches of the value summed over instances,
// taken from the lowest pass that collected the counter (passes are never added together); MEAN
// DURATION is over every executed pass. Declines, warnings, fatal errors, reading problems and
// early exits of each process follow the table. procs should hold one Process per profiled process;
// runs of an application replay must be merged into one first, or their dispatches count twice.
// A Streamed process's dispatches are read again from its record file.
func Summary(w io.Writer, procs []*records.Process, cs Counters) error {
	stats := map[string]*kernelStats{}
	columns := map[string]bool{}
	var notes []string
	for _, proc := range procs {
		n, err := summarize(proc, cs, stats, columns)
		if err != nil {
			return fmt.Errorf("summary: %w", err)
		}
		notes = append(notes, n...)
	}
	names := slices.Sorted(maps.Keys(stats))
	counterNames := slices.Sorted(maps.Keys(columns))

	header := append([]string{"KERNEL", "CALLS"}, counterNames...)
	header = append(header, "MEAN DURATION (ns)")
	align := make([]tw.Align, len(header))
	for i := range align {
		align[i] = tw.AlignRight
	}
	align[0] = tw.AlignLeft
	table := NewTable(w, align)
	table.Header(header)
	for _, name := range names {
		s := stats[name]
		cells := []string{name, strconv.Itoa(s.calls)}
		for _, c := range counterNames {
			m := s.counters[c]
			if m == nil || m.n == 0 {
				cells = append(cells, "-")
				continue
			}
			cells = append(cells, formatMean(m.sum/float64(m.n)))
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
	for _, n := range notes {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}

func summarize(proc *records.Process, cs Counters, stats map[string]*kernelStats, columns map[string]bool) ([]string, error) {
	pid := proc.Header.PID
	var notes []string
	note := func(format string, args ...any) {
		notes = append(notes, fmt.Sprintf("pid %d: ", pid)+fmt.Sprintf(format, args...))
	}
	agentIndex := map[uint64]int{}
	for _, a := range proc.Agents {
		agentIndex[a.ID] = a.Index
	}
	eval := evaluator{cs: cs}
	taken := map[string]bool{}
	err := proc.EachLogical(func(l records.Logical) error {
		k := proc.Kernels[l.Passes[0].KernelID]
		name := KernelName(k, false, false)
		s := stats[name]
		if s == nil {
			s = &kernelStats{counters: map[string]*mean{}}
			stats[name] = s
		}
		s.calls++
		clear(taken)
		for _, d := range l.Passes {
			s.durSum += float64(d.End - d.Start)
			s.durN++
			idx, ok := agentIndex[d.AgentID]
			if !ok {
				continue
			}
			cvs, errs := eval.pass(idx, d)
			for _, err := range errs {
				note("%v", err)
			}
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
	if err != nil {
		return nil, err
	}
	for _, d := range proc.Declines {
		note("dispatch %d was not replayed: %s", d.DispatchID, d.Reason)
	}
	for _, m := range proc.Warnings {
		note("warning: %s", m)
	}
	for _, m := range proc.Fatals {
		note("fatal: %s", m)
	}
	for _, p := range proc.Problems {
		note("%s: %s", filepath.Base(proc.Path), p)
	}
	if !proc.Ended() {
		note("the process did not exit normally (no end record); its results stop at its last complete dispatch")
	}
	return notes, nil
}

// formatMean prints whole numbers as integers and others with six significant digits.
func formatMean(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
