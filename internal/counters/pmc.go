package counters

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// CounterRef is one counter of a --pmc group; Device, when set, limits it to the agent of that
// index (`NAME:device=N`).
type CounterRef struct {
	Name   string
	Device *int
}

func (r CounterRef) String() string {
	if r.Device == nil {
		return r.Name
	}
	return fmt.Sprintf("%s:device=%d", r.Name, *r.Device)
}

// Group is one user counter group: the counters of one --pmc occurrence, de-duplicated and sorted.
type Group struct {
	Counters []CounterRef
}

// Names returns the group's counter names in order (a name qualified for two devices appears twice).
func (g Group) Names() []string {
	out := make([]string, len(g.Counters))
	for i, r := range g.Counters {
		out[i] = r.Name
	}
	return out
}

// ParseGroups turns the values of the --pmc occurrences into counter groups, one group per
// occurrence; counters are separated by spaces or commas. A single empty --pmc means no counter
// collection (nil groups, no error), as if the flag were absent; an empty one among several is an
// error, since dropping it would renumber the groups behind it.
func ParseGroups(occurrences []string) ([]Group, error) {
	if len(occurrences) == 0 || (len(occurrences) == 1 && len(splitCounters(occurrences[0])) == 0) {
		return nil, nil
	}
	groups := make([]Group, 0, len(occurrences))
	for i, occ := range occurrences {
		fields := splitCounters(occ)
		if len(fields) == 0 {
			return nil, fmt.Errorf("Empty counter group in --pmc flag %d. Each --pmc must specify at least one counter.", i+1)
		}
		seen := map[string]bool{}
		var g Group
		for _, f := range fields {
			ref, err := parseRef(f)
			if err != nil {
				return nil, fmt.Errorf("--pmc flag %d: %w", i+1, err)
			}
			if key := ref.String(); !seen[key] {
				seen[key] = true
				g.Counters = append(g.Counters, ref)
			}
		}
		sort.Slice(g.Counters, func(a, b int) bool { return refLess(g.Counters[a], g.Counters[b]) })
		groups = append(groups, g)
	}
	return groups, nil
}

func splitCounters(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
}

// refLess orders by name, then unqualified before qualified, then by device.
func refLess(a, b CounterRef) bool {
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	if (a.Device == nil) != (b.Device == nil) {
		return a.Device == nil
	}
	return a.Device != nil && *a.Device < *b.Device
}

func parseRef(field string) (CounterRef, error) {
	name, qual, qualified := strings.Cut(field, ":")
	if err := checkName(name); err != nil {
		return CounterRef{}, fmt.Errorf("counter %q: %w", field, err)
	}
	ref := CounterRef{Name: name}
	if !qualified {
		return ref, nil
	}
	key, val, ok := strings.Cut(qual, "=")
	if !ok || key != "device" {
		return CounterRef{}, fmt.Errorf("counter %q: the only qualifier is :device=N", field)
	}
	n, err := strconv.Atoi(val)
	if err != nil || n < 0 || strconv.Itoa(n) != val {
		return CounterRef{}, fmt.Errorf("counter %q: device %q is not a non-negative integer", field, val)
	}
	ref.Device = &n
	return ref, nil
}

// checkName accepts AMD names (SQ_WAVES, TCC_HIT_sum) and NVIDIA metric names
// (sm__inst_executed.sum).
func checkName(name string) error {
	if name == "" {
		return fmt.Errorf("empty counter name")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(isIdentStart(c) || isDigit(c) || c == '.') {
			return fmt.Errorf("character %q is not allowed in a counter name", c)
		}
	}
	return nil
}
