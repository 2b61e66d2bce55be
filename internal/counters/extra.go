package counters

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/gorocprof/gorocprof/internal/boundedread"
	"go.yaml.in/yaml/v3"
)

// Extra is a file of extra counter definitions (rocprofv3's -E/--extra-counters): derived counters
// in the schema of AMD's counter_defs.yaml (version 1), merged into the catalog of every agent whose
// architecture a definition names (Catalog.WithExtra).
type Extra struct {
	Path     string // for messages
	Counters []ExtraCounter
	text     []byte
}

// ExtraCounter is one counter of an extra definitions file.
type ExtraCounter struct {
	Name, Description string
	Line              int // where its entry starts
	Definitions       []ExtraDefinition
}

// ExtraDefinition is one expression of a counter and the architectures it applies to.
type ExtraDefinition struct {
	Architectures []string
	Expression    string
	Line          int // the expression's line
	ast           *Node
}

// Text is the file as it was read: what a run keeps so that its output can be written again later.
func (e *Extra) Text() []byte { return e.text }

// maxExtraBytes bounds what ReadExtra parses: AMD's own definitions of every architecture are
// under 300 KiB.
const maxExtraBytes = 16 << 20

// ReadExtra reads the extra counter definitions file at path (-E).
func ReadExtra(path string) (*Extra, error) {
	data, err := boundedread.File(path, maxExtraBytes)
	if err != nil {
		return nil, fmt.Errorf("extra counters: %w", err)
	}
	return ParseExtra(path, data)
}

// ParseExtra reads extra counter definitions; path names the file in messages, each of which says
// "path:line: what is wrong" for the first problem found.
func ParseExtra(path string, data []byte) (*Extra, error) {
	if len(data) > maxExtraBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d an extra counter file may hold", path, len(data), maxExtraBytes)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, yamlError(path, err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s:%d: a second YAML document (the file holds one)", path, max(more.Line, 1))
	}
	r := extraReader{path: path}
	e := &Extra{Path: path, text: append([]byte(nil), data...)}
	if err := r.document(&doc, e); err != nil {
		return nil, err
	}
	return e, nil
}

// yamlError is the YAML library's error as "path:N: reason" (it says "yaml: line N: reason").
func yamlError(path string, err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: empty file (expected rocprofiler-sdk: {counters-schema-version: 1, counters: [...]})", path)
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
		_, rest, _ := strings.Cut(msg, ":")
		return fmt.Errorf("%s:%d:%s", path, line, rest)
	}
	return fmt.Errorf("%s: %s", path, msg)
}

type extraReader struct{ path string }

func (r extraReader) errorf(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", r.path, n.Line, fmt.Sprintf(format, args...))
}

// mapping returns the keys and values of a mapping node, refusing a key given twice and any key
// not in allowed.
func (r extraReader) mapping(n *yaml.Node, what string, allowed ...string) (map[string]*yaml.Node, error) {
	if n.Kind == yaml.AliasNode {
		return nil, r.errorf(n, "%s: aliases are not supported", what)
	}
	if n.Kind != yaml.MappingNode {
		return nil, r.errorf(n, "%s is %s, expected a mapping", what, yamlKind(n))
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(allowed, k.Value) {
			return nil, r.errorf(k, "%s: unknown key %q (expected %s)", what, k.Value, strings.Join(allowed, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, r.errorf(k, "%s: key %q given twice", what, k.Value)
		}
		out[k.Value] = v
	}
	return out, nil
}

func (r extraReader) sequence(n *yaml.Node, what string) ([]*yaml.Node, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, r.errorf(n, "%s is %s, expected a list", what, yamlKind(n))
	}
	return n.Content, nil
}

// nonEmptyList is the list under key of the mapping n (read as m), which must be there and hold
// something; what names it, missing says what is wrong when it is absent or empty.
func (r extraReader) nonEmptyList(n *yaml.Node, m map[string]*yaml.Node, key, what, missing string) ([]*yaml.Node, error) {
	v, ok := m[key]
	if !ok {
		return nil, r.errorf(n, "%s", missing)
	}
	items, err := r.sequence(v, what)
	if err == nil && len(items) == 0 {
		err = r.errorf(v, "%s", missing)
	}
	return items, err
}

func (r extraReader) scalar(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", r.errorf(n, "%s is %s, expected a string", what, yamlKind(n))
	}
	return n.Value, nil
}

func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "empty"
	}
	return fmt.Sprintf("%q", n.Value)
}

func (r extraReader) document(doc *yaml.Node, e *Extra) error {
	if len(doc.Content) != 1 {
		return fmt.Errorf("%s: empty file (expected rocprofiler-sdk: {counters-schema-version: 1, counters: [...]})", r.path)
	}
	top, err := r.mapping(doc.Content[0], "the document", "rocprofiler-sdk")
	if err != nil {
		return err
	}
	sdk, ok := top["rocprofiler-sdk"]
	if !ok {
		return r.errorf(doc.Content[0], "no rocprofiler-sdk key (expected rocprofiler-sdk: {counters-schema-version: 1, counters: [...]})")
	}
	body, err := r.mapping(sdk, "rocprofiler-sdk", "counters-schema-version", "counters")
	if err != nil {
		return err
	}
	v, ok := body["counters-schema-version"]
	if !ok {
		return r.errorf(sdk, "no counters-schema-version (this reader knows version 1)")
	}
	if v.Value != "1" || v.Kind != yaml.ScalarNode {
		return r.errorf(v, "counters-schema-version %s, this reader knows version 1", yamlKind(v))
	}
	list, ok := body["counters"]
	if !ok {
		return r.errorf(sdk, "no counters list")
	}
	items, err := r.sequence(list, "counters")
	if err != nil {
		return err
	}
	seen := map[string]int{}
	for i, item := range items {
		c, err := r.counter(item, i+1)
		if err != nil {
			return err
		}
		if line, dup := seen[c.Name]; dup {
			return r.errorf(item, "counter %s is defined twice (first at line %d)", c.Name, line)
		}
		seen[c.Name] = c.Line
		e.Counters = append(e.Counters, c)
	}
	return nil
}

func (r extraReader) counter(n *yaml.Node, index int) (ExtraCounter, error) {
	what := fmt.Sprintf("counter %d", index)
	m, err := r.mapping(n, what, "name", "description", "properties", "definitions")
	if err != nil {
		return ExtraCounter{}, err
	}
	c := ExtraCounter{Line: n.Line}
	nameNode, ok := m["name"]
	if !ok {
		return c, r.errorf(n, "%s has no name", what)
	}
	if c.Name, err = r.scalar(nameNode, what+" name"); err != nil {
		return c, err
	}
	if err := checkName(c.Name); err != nil || strings.Contains(c.Name, ".") || isConstantName(c.Name) {
		return c, r.errorf(nameNode, "counter name %q: a counter name is letters, digits and '_', with an upper case letter (lower case names are agent constants)", c.Name)
	}
	what = "counter " + c.Name
	if d, ok := m["description"]; ok && d.Tag != "!!null" {
		if c.Description, err = r.scalar(d, what+" description"); err != nil {
			return c, err
		}
	}
	items, err := r.nonEmptyList(n, m, "definitions", what+" definitions", what+" has no definitions")
	if err != nil {
		return c, err
	}
	for _, item := range items {
		d, err := r.definition(item, what)
		if err != nil {
			return c, err
		}
		c.Definitions = append(c.Definitions, d)
	}
	return c, nil
}

func (r extraReader) definition(n *yaml.Node, what string) (ExtraDefinition, error) {
	m, err := r.mapping(n, what+" definition", "architectures", "expression", "block", "event")
	if err != nil {
		return ExtraDefinition{}, err
	}
	d := ExtraDefinition{Line: n.Line}
	if b, ok := m["block"]; ok {
		return d, r.errorf(b, "%s: a block and event define a hardware counter; extra counters are derived: give an expression over the agent's counters", what)
	}
	if ev, ok := m["event"]; ok {
		return d, r.errorf(ev, "%s: an event defines a hardware counter; extra counters are derived: give an expression over the agent's counters", what)
	}
	items, err := r.nonEmptyList(n, m, "architectures", what+" architectures", what+": a definition without architectures")
	if err != nil {
		return d, err
	}
	for _, a := range items {
		s, err := r.scalar(a, what+" architecture")
		if err != nil {
			return d, err
		}
		d.Architectures = append(d.Architectures, s)
	}
	expr, ok := m["expression"]
	if !ok {
		return d, r.errorf(n, "%s: a definition without an expression", what)
	}
	if d.Expression, err = r.scalar(expr, what+" expression"); err != nil {
		return d, err
	}
	d.Line = expr.Line
	if d.ast, err = ParseExpression(d.Expression); err != nil {
		return d, r.errorf(expr, "%s: expression %q: %v", what, d.Expression, err)
	}
	return d, nil
}

// WithExtra returns a catalog holding this one's counters and every extra counter defined for its
// architecture (its exact name, else the definitions' family entry such as gfx9, as the built-in
// definitions are chosen). The extras are checked as the built-in ones are, but a problem is an
// error naming the file and line, not a counter left out: the user asked for them. Redefining a
// counter the catalog has is refused; a counter without a definition for this architecture is not
// added. The receiver is not changed (catalogs are shared between runs).
func (c *Catalog) WithExtra(e *Extra) (*Catalog, error) {
	if e == nil || len(e.Counters) == 0 {
		return c, nil
	}
	out := newCatalog(c.Arch, c.Source, c.Vendor)
	out.Unsupported = slices.Clone(c.Unsupported)
	maps.Copy(out.counters, c.counters)
	out.limits, out.passes = c.limits, c.passes
	lines := map[string]int{}
	for _, ec := range e.Counters {
		d, ok := ec.definitionFor(c.Arch, c.Source)
		if !ok {
			continue
		}
		if old, exists := c.counters[ec.Name]; exists {
			kind := "a hardware counter"
			if old.base == nil {
				kind = "a derived counter of its own definitions"
			}
			return nil, fmt.Errorf("%s:%d: counter %s is %s on %s: an extra counter may not redefine it (give it another name)",
				e.Path, ec.Line, ec.Name, kind, c.Arch)
		}
		out.add(&counter{name: ec.Name, description: strings.TrimSpace(ec.Description), expression: d.Expression, ast: d.ast})
		lines[ec.Name] = d.Line
	}
	cycles := out.cycles()
	memo := map[string][]Base{}
	for _, name := range slices.Sorted(maps.Keys(lines)) {
		if err := out.checkExtra(name, cycles, memo); err != nil {
			return nil, fmt.Errorf("%s:%d: counter %s on %s: %w", e.Path, lines[name], name, c.Arch, err)
		}
	}
	out.finish()
	return out, nil
}

// definitionFor picks the counter's definition for an architecture: the one naming it, else the
// one naming the source of its built-in definitions or its family.
func (ec ExtraCounter) definitionFor(arch, source string) (ExtraDefinition, bool) {
	for _, want := range []string{arch, source, family(arch)} {
		for _, d := range ec.Definitions {
			if want != "" && slices.Contains(d.Architectures, want) {
				return d, true
			}
		}
	}
	return ExtraDefinition{}, false
}

// checkExtra is resolve and dropOverLimit for one added counter, as errors; cycles and memo are
// shared by every added counter, so that each definition is walked once.
func (c *Catalog) checkExtra(name string, cycles map[string][]string, memo map[string][]Base) error {
	k := c.counters[name]
	var missing []string
	k.ast.Idents(func(id *Node) {
		if !c.Has(id.Name) && !isConstantName(id.Name) {
			reason := "which this agent does not offer"
			if c.unsupported(id.Name) {
				reason = "which is unsupported on this agent"
			}
			missing = append(missing, fmt.Sprintf("%s (position %d), %s", id.Name, id.Pos, reason))
		}
	})
	if len(missing) > 0 {
		return fmt.Errorf("expression %q uses %s", k.expression, strings.Join(missing, "; "))
	}
	if cyc := cycles[name]; cyc != nil {
		return fmt.Errorf("expression refers to itself: %s", pathText(cyc))
	}
	if c.Vendor != VendorAMD {
		return nil
	}
	for _, o := range c.overLimit(c.baseEvents(name, memo)) {
		return fmt.Errorf("needs %d %s events, one pass counts at most %d", o.need, o.block, o.limit)
	}
	return nil
}
