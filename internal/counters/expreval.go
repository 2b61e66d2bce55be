package counters

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
)

// vec is an intermediate value: one number per instance, and the layout of those instances when
// it is known (nil after a full reduction or when the delivered count does not match the model).
type vec struct {
	vals []float64
	dims []Dimension
}

// island is a maximal arithmetic subtree compiled into an expr program over its leaves (numbers,
// counters, constants and function calls), which are evaluated separately and bound as v0, v1...
type island struct {
	prog   *vm.Program
	leaves []*Node
}

// safeDiv is the division of derived expressions: a zero divisor yields 0, as rocprofv3 does, so
// that a kernel which never touched a unit reports 0 rather than NaN or Inf.
func safeDiv(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

var divFunction = expr.Function("div", func(params ...any) (any, error) {
	return safeDiv(params[0].(float64), params[1].(float64)), nil
}, safeDiv)

// Evaluate computes a counter from base values (one slice per base counter, one value per
// instance) and agent constants. A base counter is returned as delivered; a derived counter yields
// one value per instance of its result (one value for every shipped expression).
func (c *Catalog) Evaluate(name string, base map[string][]float64, consts map[string]float64) ([]float64, error) {
	if !c.Has(name) {
		return nil, fmt.Errorf("evaluating %s on %s: no such counter", name, c.Arch)
	}
	e := &evaluator{cat: c, base: base, consts: consts, memo: map[string]vec{}}
	v, err := e.counter(name)
	if err != nil {
		return nil, err
	}
	return append([]float64(nil), v.vals...), nil
}

type evaluator struct {
	cat    *Catalog
	base   map[string][]float64
	consts map[string]float64
	memo   map[string]vec
}

func (e *evaluator) counter(name string) (vec, error) {
	if v, ok := e.memo[name]; ok {
		return v, nil
	}
	k := e.cat.counters[name]
	var v vec
	if k.base != nil {
		vals, ok := e.base[name]
		if !ok || len(vals) == 0 {
			return vec{}, fmt.Errorf("evaluating %s on %s: no values for base counter %s", name, e.cat.Arch, name)
		}
		v = vec{vals: vals}
		if e.cat.Vendor == VendorAMD {
			dims := blockDimensions(k.base.Block, e.consts)
			if sizes, ok := shape(dims); ok && product(sizes) == len(vals) {
				v.dims = dims
			}
		}
	} else {
		var err error
		if v, err = e.node(k.ast); err != nil {
			return vec{}, fmt.Errorf("evaluating %s on %s: %w", name, e.cat.Arch, err)
		}
	}
	e.memo[name] = v
	return v, nil
}

func (e *evaluator) node(n *Node) (vec, error) {
	switch n.Kind {
	case KindNumber:
		return vec{vals: []float64{n.Num}}, nil
	case KindIdent:
		if e.cat.Has(n.Name) {
			return e.counter(n.Name)
		}
		v, ok := e.consts[n.Name]
		if !ok {
			return vec{}, fmt.Errorf("position %d: the agent does not report the constant %s", n.Pos, n.Name)
		}
		return vec{vals: []float64{v}}, nil
	case KindAccumulate:
		return e.node(n.X)
	case KindReduce:
		x, err := e.node(n.X)
		if err != nil {
			return vec{}, err
		}
		return reduce(x, n)
	case KindSelect:
		x, err := e.node(n.X)
		if err != nil {
			return vec{}, err
		}
		return selectDims(x, n)
	}
	return e.arithmetic(n)
}

func (e *evaluator) arithmetic(n *Node) (vec, error) {
	is, err := e.cat.compile(n)
	if err != nil {
		return vec{}, err
	}
	leaves := make([]vec, len(is.leaves))
	count := 1
	var dims []Dimension
	for i, l := range is.leaves {
		if leaves[i], err = e.node(l); err != nil {
			return vec{}, err
		}
		switch m := len(leaves[i].vals); {
		case m == 1:
		case count == 1:
			count, dims = m, leaves[i].dims
		case m != count:
			return vec{}, fmt.Errorf("position %d: operands have %d and %d instances", n.Pos, count, m)
		}
	}
	env := make(map[string]any, len(leaves))
	out := make([]float64, count)
	for i := range out {
		for j, l := range leaves {
			if len(l.vals) == 1 {
				env[leafName(j)] = l.vals[0]
			} else {
				env[leafName(j)] = l.vals[i]
			}
		}
		r, err := expr.Run(is.prog, env)
		if err != nil {
			return vec{}, fmt.Errorf("position %d: %w", n.Pos, err)
		}
		out[i] = r.(float64)
	}
	return vec{vals: out, dims: dims}, nil
}

func leafName(i int) string { return "v" + strconv.Itoa(i) }

// compile turns an arithmetic subtree into an expr program, once per node.
func (c *Catalog) compile(n *Node) (*island, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if is, ok := c.programs[n]; ok {
		return is, nil
	}
	is := &island{}
	var src strings.Builder
	var emit func(*Node)
	emit = func(m *Node) {
		switch {
		case m.Kind == KindBinary && m.Op == '/':
			src.WriteString("div(")
			emit(m.X)
			src.WriteString(", ")
			emit(m.Y)
			src.WriteString(")")
		case m.Kind == KindBinary:
			src.WriteString("(")
			emit(m.X)
			src.WriteString(" " + string(m.Op) + " ")
			emit(m.Y)
			src.WriteString(")")
		case m.Kind == KindUnary:
			src.WriteString("(-")
			emit(m.X)
			src.WriteString(")")
		default:
			src.WriteString(leafName(len(is.leaves)))
			is.leaves = append(is.leaves, m)
		}
	}
	emit(n)
	env := make(map[string]any, len(is.leaves))
	for i := range is.leaves {
		env[leafName(i)] = 0.0
	}
	prog, err := expr.Compile(src.String(), expr.Env(env), divFunction, expr.AsFloat64())
	if err != nil {
		return nil, fmt.Errorf("position %d: compiling %q: %w", n.Pos, src.String(), err)
	}
	is.prog = prog
	c.programs[n] = is
	return is, nil
}

func reduce(x vec, n *Node) (vec, error) {
	if len(x.vals) == 0 {
		return vec{}, fmt.Errorf("position %d: reduce of no instances", n.Pos)
	}
	if len(n.Dims) == 0 {
		return vec{vals: []float64{fold(n.Name, x.vals)}}, nil
	}
	sizes, ok := shape(x.dims)
	if !ok || len(sizes) == 0 {
		return vec{}, fmt.Errorf("position %d: reduce over %s needs the instance layout of its operand (%d values), which is unknown here",
			n.Pos, strings.Join(n.Dims, ", "), len(x.vals))
	}
	drop := map[int]bool{}
	for _, d := range n.Dims {
		i := dimIndex(x.dims, d)
		if i < 0 {
			return vec{}, fmt.Errorf("position %d: operand has no dimension %s", n.Pos, d)
		}
		drop[i] = true
	}
	var kept []Dimension
	for i, d := range x.dims {
		if !drop[i] {
			kept = append(kept, d)
		}
	}
	keptSizes, _ := shape(kept)
	groups := make([][]float64, product(keptSizes))
	for flat, v := range x.vals {
		idx := unflatten(flat, sizes)
		var k []int
		for i, ix := range idx {
			if !drop[i] {
				k = append(k, ix)
			}
		}
		g := flatten(k, keptSizes)
		groups[g] = append(groups[g], v)
	}
	out := make([]float64, len(groups))
	for i, g := range groups {
		out[i] = fold(n.Name, g)
	}
	return vec{vals: out, dims: kept}, nil
}

func fold(op string, vals []float64) float64 {
	acc := vals[0]
	for _, v := range vals[1:] {
		switch op {
		case "max":
			acc = math.Max(acc, v)
		case "min":
			acc = math.Min(acc, v)
		default:
			acc += v
		}
	}
	if op == "avg" {
		acc /= float64(len(vals))
	}
	return acc
}

func selectDims(x vec, n *Node) (vec, error) {
	sizes, ok := shape(x.dims)
	if !ok || len(sizes) == 0 {
		return vec{}, fmt.Errorf("position %d: select needs the instance layout of its operand (%d values), which is unknown here",
			n.Pos, len(x.vals))
	}
	want := map[int]int{}
	for _, s := range n.Sel {
		i := dimIndex(x.dims, s.Dim)
		if i < 0 {
			return vec{}, fmt.Errorf("position %d: operand has no dimension %s", n.Pos, s.Dim)
		}
		if s.Index >= sizes[i] {
			return vec{}, fmt.Errorf("position %d: %s=%d is out of range (size %d)", n.Pos, s.Dim, s.Index, sizes[i])
		}
		want[i] = s.Index
	}
	var out vec
	for i, d := range x.dims {
		if _, ok := want[i]; !ok {
			out.dims = append(out.dims, d)
		}
	}
	for flat, v := range x.vals {
		idx := unflatten(flat, sizes)
		match := true
		for i, w := range want {
			if idx[i] != w {
				match = false
			}
		}
		if match {
			out.vals = append(out.vals, v)
		}
	}
	return out, nil
}

func dimIndex(dims []Dimension, name string) int {
	for i, d := range dims {
		if d.Name == name {
			return i
		}
	}
	return -1
}

func product(sizes []int) int {
	p := 1
	for _, s := range sizes {
		p *= s
	}
	return p
}

func unflatten(flat int, sizes []int) []int {
	idx := make([]int, len(sizes))
	for i := len(sizes) - 1; i >= 0; i-- {
		idx[i] = flat % sizes[i]
		flat /= sizes[i]
	}
	return idx
}

func flatten(idx, sizes []int) int {
	flat := 0
	for i, ix := range idx {
		flat = flat*sizes[i] + ix
	}
	return flat
}
