package output

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// Trace hands one trace line to every sink that takes them. A line of a domain the outputs do not
// know (a newer tool's), or of a domain that is not its type's (an API line of the marker domain),
// goes to none, so that every format leaves out the same lines, and is reported with the
// evaluation failures.
func (f *Files) Trace(t *contract.Trace) error {
	if ok, err := f.taking(); !ok {
		return err
	}
	if !traceLineKnown(t) {
		if f.unknown == nil {
			f.unknown = map[string]int{}
		}
		f.unknown[t.Kind+" line of domain "+strconv.Quote(t.TraceDomain())]++
		return nil
	}
	for _, s := range f.sinks {
		if ts, ok := s.(TraceSink); ok {
			if err := ts.Trace(t); err != nil {
				return f.fail(err)
			}
		}
	}
	return nil
}

// unknownTraceError reports the trace lines Trace left out of the process pid; nil when none was.
func (f *Files) unknownTraceError(pid int64) error {
	if len(f.unknown) == 0 {
		return nil
	}
	var parts []string
	for _, d := range slices.Sorted(maps.Keys(f.unknown)) {
		parts = append(parts, fmt.Sprintf("%d %s", f.unknown[d], d))
	}
	return fmt.Errorf("pid %d: trace lines of a domain no output knows, or not of their type, were left out: %s",
		pid, strings.Join(parts, ", "))
}
