package querycache

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"github.com/gorocprof/gorocprof/internal/boundedread"
	"github.com/gorocprof/gorocprof/internal/contract"
)

// A run that names a few metrics has them looked up rather than the whole catalog listed
// (`metrics --only`). Those answers are filed apart from the catalog, in a file of their own that only
// Lookup reads: a handful of metrics is never served as the chip's whole catalog.
const lookupsSuffix = ".lookups.json"

type lookupsFile struct {
	Format   int                       `json:"format"`
	Identity string                    `json:"identity"`
	Chip     string                    `json:"chip"`
	Metrics  map[string]lookedUpMetric `json:"metrics"` // name -> what the helper said of it
}

type lookedUpMetric struct {
	Description string `json:"description"`
	Unit        string `json:"unit"`
}

// Lookup returns the named metrics, in the order given, when every one of them was looked up before;
// otherwise a miss.
func (c *Chip) Lookup(names []string) ([]contract.Metric, bool) {
	if c == nil {
		return nil, false
	}
	f := c.loadLookups()
	out := make([]contract.Metric, 0, len(names))
	for _, n := range names {
		m, ok := f.Metrics[n]
		if !ok {
			return nil, false
		}
		out = append(out, contract.Metric{Name: n, Description: m.Description, Unit: m.Unit})
	}
	return out, true
}

// SaveLookups files metrics the helper looked up, merged with what the file holds now (another gorocprof
// may have added some since).
func (c *Chip) SaveLookups(metrics []contract.Metric) error {
	if c == nil || len(metrics) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.loadLookups()
	for _, m := range metrics {
		f.Metrics[m.Name] = lookedUpMetric{Description: m.Description, Unit: m.Unit}
	}
	return c.store.write(c.base+lookupsSuffix, f)
}

func (c *Chip) loadLookups() lookupsFile {
	var f lookupsFile
	if !c.store.load(c.base+lookupsSuffix, c.identity, &f, &f.Format, &f.Identity) || f.Metrics == nil {
		f = lookupsFile{Metrics: map[string]lookedUpMetric{}}
	}
	f.Format, f.Identity, f.Chip = formatVersion, c.identity, c.chip
	return f
}

// Answers reports whether an entry of the helper at helperPath, of any chip, would answer a catalog of
// names without asking the helper: a whole catalog, or metrics looked up that hold them all. Before the
// agents are known the chip is not, so every entry of the directory is looked at (their headers only).
func (s *Store) Answers(helperPath string, names []string) bool {
	if s == nil {
		return false
	}
	d, err := s.helper(helperPath)
	if err != nil {
		return false
	}
	whole, _ := filepath.Glob(filepath.Join(s.dir, "*"+metricsSuffix))
	for _, p := range whole {
		if h, ok := readMetricsHeader(p); ok && h.Format == formatVersion && h.Identity == chipIdentity(d, h.Chip) {
			return true
		}
	}
	looked, _ := filepath.Glob(filepath.Join(s.dir, "*"+lookupsSuffix))
	for _, p := range looked {
		var f lookupsFile
		data, err := boundedread.File(p, entryLimit)
		if err != nil || json.Unmarshal(data, &f) != nil || f.Format != formatVersion || f.Identity != chipIdentity(d, f.Chip) {
			continue
		}
		if !slices.ContainsFunc(names, func(n string) bool { _, ok := f.Metrics[n]; return !ok }) {
			return true
		}
	}
	return false
}

// readMetricsHeader reads a catalog file's header line alone.
func readMetricsHeader(path string) (metricsHeader, bool) {
	var h metricsHeader
	f, err := os.Open(path)
	if err != nil {
		return h, false
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 4096).ReadSlice('\n')
	if err != nil {
		return h, false
	}
	return h, json.Unmarshal(line, &h) == nil
}
