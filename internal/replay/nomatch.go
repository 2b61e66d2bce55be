package replay

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
	"github.com/gorocprof/gorocprof/internal/textdist"
)

// maxKernelsNamed is how many of the application's kernels the no-match warning names.
const maxKernelsNamed = 8

// warnNoMatch says, when the kernel filters let no dispatch of the run through, which filters
// they were and which kernels the application has (its loaded kernel symbols, as the filters see
// their names), those closest to the include expression first: a filter that selects nothing is
// most often a typo or a name in the other form (-M, -T). As in rocprofv3, the run is not an error:
// it exits with the application's status and writes its (empty) files.
func warnNoMatch(stderr io.Writer, req Request, procs []*records.Process) {
	f := req.Filters
	if f.IncludeRegex == "" && f.ExcludeRegex == "" && len(f.IterationRanges) == 0 {
		return
	}
	names := map[string]bool{}
	for _, p := range procs {
		if p.Totals().Dispatches > 0 {
			return
		}
		for _, k := range p.Kernels {
			names[output.KernelName(k, req.Mangled, req.Truncate)] = true
		}
	}
	var filters []string
	if f.IncludeRegex != "" {
		filters = append(filters, fmt.Sprintf("--kernel-include-regex %q", f.IncludeRegex))
	}
	if f.ExcludeRegex != "" {
		filters = append(filters, fmt.Sprintf("--kernel-exclude-regex %q", f.ExcludeRegex))
	}
	if len(f.IterationRanges) > 0 {
		filters = append(filters, "--kernel-iteration-range "+rangesText(f.IterationRanges))
	}
	msg := fmt.Sprintf("gorocprof: warning: the kernel filters (%s) selected no dispatch: nothing was profiled", strings.Join(filters, ", "))
	if len(names) == 0 {
		fmt.Fprintln(stderr, msg+"; the application loaded no kernel")
		return
	}
	sorted := closestFirst(slices.Collect(maps.Keys(names)), f.IncludeRegex)
	more := ""
	if len(sorted) > maxKernelsNamed {
		more = fmt.Sprintf(", and %d more", len(sorted)-maxKernelsNamed)
		sorted = sorted[:maxKernelsNamed]
	}
	fmt.Fprintf(stderr, "%s; the application's kernels (names as the filters see them, the closest first): %s%s\n",
		msg, strings.Join(quoteAll(sorted), ", "), more)
}

// closestFirst orders names by how near they come to pattern (a regular expression, taken as the
// word it most often is), then by name.
func closestFirst(names []string, pattern string) []string {
	p := strings.ToLower(pattern)
	score := func(name string) int {
		n := strings.ToLower(name)
		if p == "" {
			return 0
		}
		// The nearest window of the name as long as the pattern: "gemm" is near "gemv_kernel".
		best := textdist.Distance(p, n)
		for i := 0; i+len(p) <= len(n); i++ {
			best = min(best, textdist.Distance(p, n[i:i+len(p)]))
		}
		return best
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(score(a), score(b)), cmp.Compare(a, b)) })
	return names
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

// rangesText writes iteration ranges as --kernel-iteration-range takes them.
func rangesText(ranges [][2]int64) string {
	parts := make([]string, len(ranges))
	for i, r := range ranges {
		if r[0] == r[1] {
			parts[i] = fmt.Sprint(r[0])
		} else {
			parts[i] = fmt.Sprintf("[%d-%d]", r[0], r[1])
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
