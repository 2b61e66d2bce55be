package replay

import (
	"errors"
	"fmt"
	"io"
	"sort"
)

// ErrDivergence marks an application replay whose runs did not dispatch the same kernels: the merged
// result holds only what matched, so gorocprof must not exit 0 unless the user allowed it.
var ErrDivergence = errors.New("application replay runs diverged")

// Kinds of divergence between the runs of an application replay.
const (
	DivergenceMissing   = "missing"   // a later run lacks dispatches of a kernel the first run had
	DivergenceExtra     = "extra"     // a later run has dispatches of a kernel the first run lacks
	DivergenceGeometry  = "geometry"  // the same dispatch of a kernel was launched with another grid or workgroup
	DivergenceProcesses = "processes" // the runs started other processes (count or command line)
)

// Divergence is one way a later run differs from the first, for one kernel of one process: the
// first dispatch concerned and how many differ the same way.
type Divergence struct {
	Process int    `json:"process"`           // 1-based, by order of start; 0 when about the whole run
	Agent   int    `json:"agent"`             // agent index, its GPU number
	Number  int64  `json:"logical_node_id"`   // the agent's number in the files (Agent_Id)
	Kernel  string `json:"kernel,omitempty"`  // demangled kernel name, as the compare table and the summary show it
	Symbol  string `json:"symbol,omitempty"`  // kernel symbol, by which the runs' dispatches are matched
	Ordinal uint64 `json:"ordinal,omitempty"` // 1-based per-kernel ordinal of the first dispatch concerned
	Pass    int    `json:"pass"`              // 1-based pass whose run differs from pass 1's
	Kind    string `json:"kind"`
	Detail  string `json:"detail"` // the divergence as a sentence, as the terminal prints it
	Count   int    `json:"count"`  // dispatches (or processes) that differ this way
	fact    string // what the first dispatch concerned showed, for Detail
}

func (d Divergence) String() string { return d.Detail }

// sentence says what a kernel's divergence is: "pass 2 ran 1 dispatch fewer of kernel K on Agent 1
// than pass 1", with the first dispatch concerned and what it showed.
func (d Divergence) sentence() string {
	dispatches := plural(d.Count, "dispatch", "dispatches")
	kernel := fmt.Sprintf("kernel %s on Agent %d", d.Kernel, d.Number)
	var s string
	switch d.Kind {
	case DivergenceMissing:
		s = fmt.Sprintf("pass %d ran %s fewer of %s than pass 1", d.Pass, dispatches, kernel)
	case DivergenceExtra:
		s = fmt.Sprintf("pass %d ran %s more of %s than pass 1", d.Pass, dispatches, kernel)
	case DivergenceGeometry:
		s = fmt.Sprintf("pass %d launched %s of %s with another geometry than pass 1", d.Pass, dispatches, kernel)
	default:
		s = fmt.Sprintf("pass %d differs from pass 1 in %s of %s (%s)", d.Pass, dispatches, kernel, d.Kind)
	}
	s = fmt.Sprintf("process %d: %s, from the kernel's dispatch #%d", d.Process, s, d.Ordinal)
	if d.fact != "" {
		s += " (" + d.fact + ")"
	}
	return s
}

// divergences gathers one process's divergences, one entry per (kernel, pass, kind): the state is
// per kernel, not per dispatch, however much the runs differ.
type divergences struct {
	proc    int
	byKey   map[divKey]*Divergence
	general []Divergence
	names   map[string]string // demangled names by kernel symbol, filled as the runs' kernels are read
	numbers map[int]int64     // the first run's agents' numbers in the files, by agent index
}

type divKey struct {
	kernel kernelKey
	pass   int
	kind   string
}

func newDivergences(proc int) *divergences {
	return &divergences{proc: proc, byKey: map[divKey]*Divergence{}, names: map[string]string{}, numbers: map[int]int64{}}
}

// note counts one diverging dispatch; the first one of its kind names the details (fact may be
// empty when the kind says it all).
func (d *divergences) note(kind string, k kernelKey, ordinal uint64, pass int, fact string) {
	key := divKey{k, pass, kind}
	if e := d.byKey[key]; e != nil {
		e.Count++
		return
	}
	d.byKey[key] = &Divergence{Process: d.proc, Agent: k.agent, Number: d.numbers[k.agent], Symbol: k.name, Ordinal: ordinal, Pass: pass, Kind: kind, fact: fact, Count: 1}
}

// add records a divergence that concerns no single kernel.
func (d *divergences) add(v Divergence) {
	v.Process = d.proc
	d.general = append(d.general, v)
}

// list returns the divergences ordered by pass, agent, kernel, kind, each with its sentence.
func (d *divergences) list() []Divergence {
	out := append([]Divergence(nil), d.general...)
	for _, v := range d.byKey {
		e := *v
		e.Kernel = d.names[e.Symbol]
		if e.Kernel == "" {
			e.Kernel = e.Symbol
		}
		e.Detail = e.sentence()
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.Pass != b.Pass:
			return a.Pass < b.Pass
		case a.Agent != b.Agent:
			return a.Agent < b.Agent
		case a.Kernel != b.Kernel:
			return a.Kernel < b.Kernel
		}
		return a.Kind < b.Kind
	})
	return out
}

// maxDivergenceLines bounds the report on the terminal; the JSON report of compare has them all.
const maxDivergenceLines = 20

// PrintDivergences writes the divergence report, one line per divergence.
func PrintDivergences(w io.Writer, prefix string, ds []Divergence) {
	for i, d := range ds {
		if i == maxDivergenceLines {
			fmt.Fprintf(w, "%s... and %d more\n", prefix, len(ds)-i)
			return
		}
		fmt.Fprintf(w, "%s%s\n", prefix, d)
	}
}
