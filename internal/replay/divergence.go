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
// first dispatch concerned and how many more differ the same way.
type Divergence struct {
	Process int    `json:"process"`           // 1-based, by order of start; 0 when about the whole run
	Agent   int    `json:"agent"`             // agent index
	Kernel  string `json:"kernel,omitempty"`  // kernel symbol name
	Ordinal uint64 `json:"ordinal,omitempty"` // 1-based per-kernel ordinal of the first dispatch concerned
	Pass    int    `json:"pass"`              // 1-based pass whose run differs from pass 1's
	Kind    string `json:"kind"`
	Detail  string `json:"detail"`
	Count   int    `json:"count"` // dispatches (or processes) that differ this way
}

func (d Divergence) String() string {
	if d.Kernel == "" {
		if d.Process > 0 {
			return fmt.Sprintf("process %d: %s", d.Process, d.Detail)
		}
		return d.Detail
	}
	s := fmt.Sprintf("process %d, kernel %s on agent %d, dispatch #%d of the kernel: %s", d.Process, d.Kernel, d.Agent, d.Ordinal, d.Detail)
	if d.Count > 1 {
		s += fmt.Sprintf(" (and %d more dispatches of this kernel)", d.Count-1)
	}
	return s
}

// divergences gathers one process's divergences, one entry per (kernel, pass, kind): the state is
// per kernel, not per dispatch, however much the runs differ.
type divergences struct {
	proc    int
	byKey   map[divKey]*Divergence
	general []Divergence
}

type divKey struct {
	kernel kernelKey
	pass   int
	kind   string
}

func newDivergences(proc int) *divergences {
	return &divergences{proc: proc, byKey: map[divKey]*Divergence{}}
}

// note counts one diverging dispatch; the first one of its kind names the details.
func (d *divergences) note(kind string, k kernelKey, ordinal uint64, pass int, detail string) {
	key := divKey{k, pass, kind}
	if e := d.byKey[key]; e != nil {
		e.Count++
		return
	}
	d.byKey[key] = &Divergence{Process: d.proc, Agent: k.agent, Kernel: k.name, Ordinal: ordinal, Pass: pass, Kind: kind, Detail: detail, Count: 1}
}

// add records a divergence that concerns no single kernel.
func (d *divergences) add(v Divergence) {
	v.Process = d.proc
	d.general = append(d.general, v)
}

// list returns the divergences ordered by pass, agent, kernel, kind.
func (d *divergences) list() []Divergence {
	out := append([]Divergence(nil), d.general...)
	for _, v := range d.byKey {
		out = append(out, *v)
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
