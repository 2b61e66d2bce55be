package cli

import (
	"fmt"
	"path"
	"strings"
)

// matchCounters keeps the counters whose name a pattern matches (AvailOptions.Patterns). A
// pattern that matches no counter of any agent is an error naming it, so that a typo is not taken
// for a counter the agents lack silently.
func matchCounters(agents []AgentCounters, patterns []string) ([]AgentCounters, error) {
	if len(patterns) == 0 {
		return agents, nil
	}
	for _, p := range patterns {
		if _, err := path.Match(strings.ToUpper(p), ""); err != nil {
			return nil, usageErrorf("avail pattern %q: %v", p, err)
		}
	}
	used := make([]bool, len(patterns))
	out := make([]AgentCounters, 0, len(agents))
	for _, a := range agents {
		kept := a
		kept.Counters = nil
		for _, c := range a.Counters {
			for i, p := range patterns {
				if counterMatches(c.Name, p) {
					kept.Counters = append(kept.Counters, c)
					used[i] = true
					break
				}
			}
		}
		out = append(out, kept)
	}
	var none []string
	for i, p := range patterns {
		if !used[i] {
			none = append(none, fmt.Sprintf("%q", p))
		}
	}
	if len(none) > 0 {
		return nil, fmt.Errorf("no counter of the agents matches %s (see gorocprof avail)", strings.Join(none, ", "))
	}
	return out, nil
}

func counterMatches(name, pattern string) bool {
	n, p := strings.ToUpper(name), strings.ToUpper(pattern)
	if strings.ContainsAny(p, "*?[") {
		ok, _ := path.Match(p, n)
		return ok
	}
	return strings.Contains(n, p)
}

// availWidths are the widths avail's four columns (counter, block or expression, dimensions,
// description) wrap at to fit width columns: the name and the dimensions as wide as they are, up
// to a quarter and a sixth of the width, the rest shared by the expression (two fifths) and the
// description. width 0 (no terminal): availColumnWidth each.
func availWidths(width int, agents []AgentCounters) []int {
	if width <= 0 {
		return []int{availColumnWidth, availColumnWidth, availColumnWidth, availColumnWidth}
	}
	name, dims := len("Counter"), len("Dimensions")
	for _, a := range agents {
		for _, c := range a.Counters {
			name = max(name, len(c.Name))
			dims = max(dims, len(dimensionsText(c.Dimensions)))
		}
	}
	inner := width - 13 // the borders and padding of four columns
	name, dims = max(min(name, inner/4), 8), max(min(dims, inner/6), len("Dimensions"))
	rest := max(inner-name-dims, len("Block or expression")+len("Description"))
	expr := max(rest*2/5, len("Block or expression"))
	return []int{name, expr, dims, rest - expr}
}

// wrapText breaks s into lines of at most width characters at spaces, and a word longer than
// width where it must.
func wrapText(s string, width int) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		for len(word) > width {
			if line != "" {
				lines, line = append(lines, line), ""
			}
			lines, word = append(lines, word[:width]), word[width:]
		}
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines, line = append(lines, line), word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// wrapLines breaks each line of s longer than width: expressions have no spaces to break at.
func wrapLines(s string, width int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = wrapText(l, width)
	}
	return strings.Join(lines, "\n")
}
