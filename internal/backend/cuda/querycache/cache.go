// Package querycache keeps a query helper's answers about a chip (its metric catalog and how many
// hardware passes metric sets need) on disk, so that planning a run does not start the helper, and
// with it CUDA and CUPTI, again for questions this machine answered before. Every answer is filed
// under the Identity of the helper, its libraries, the driver and the chip, and is used only under the
// same identity. On an NVIDIA machine the agent list is kept as well (agents.go), under the helper's
// fingerprint and the machine's. Only answers are kept, never errors.
package querycache

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gorocprof/gorocprof/internal/boundedread"
	"github.com/gorocprof/gorocprof/internal/contract"
)

// EnvCache names the cache directory, or turns the cache off with "off".
const EnvCache = "GOROCPROF_QUERY_CACHE"

// formatVersion changes when the files' layout changes; it is part of every identity.
const formatVersion = 1

// Store is a cache directory. A nil *Store is a cache that is off: it never hits and saves nothing.
type Store struct {
	dir    string
	driver string // the NVIDIA driver's /proc directory (DriverDir unless Driver says otherwise)

	mu           sync.Mutex
	digests      map[string][]byte // helper path, size and mtime -> its digest
	fingerprints int               // helpers read, for the tests of the memo
}

// helper returns the helper's fingerprint, reading the helper once per store for as long as its size
// and modification time stay the same: a warm plan needs it for the agent list and again for each chip.
func (s *Store) helper(helperPath string) ([]byte, error) {
	key := helperPath
	if fi, err := os.Stat(helperPath); err == nil {
		key = fmt.Sprintf("%s\x00%d\x00%d", helperPath, fi.Size(), fi.ModTime().UnixNano())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.digests[key]; ok {
		return d, nil
	}
	d, err := s.helperDigest(helperPath)
	if err != nil {
		return nil, err
	}
	s.fingerprints++
	if s.digests == nil {
		s.digests = map[string][]byte{}
	}
	s.digests[key] = d
	return d, nil
}

// Open returns the store GOROCPROF_QUERY_CACHE asks for: that directory, nil for "off", and by default
// gorocprof/query under the user's cache directory (nil when there is none, as for a user without a
// home directory).
func Open() *Store {
	switch v := os.Getenv(EnvCache); v {
	case "off":
		return nil
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return nil
		}
		return &Store{dir: filepath.Join(base, "gorocprof", "query"), driver: DriverDir}
	default:
		return &Store{dir: v, driver: DriverDir}
	}
}

// At returns a store in dir (tests, tools).
func At(dir string) *Store { return &Store{dir: dir, driver: DriverDir} }

// Driver makes the store read the NVIDIA driver's /proc directory at dir instead of DriverDir: tests
// point it at fixture trees of another machine.
func (s *Store) Driver(dir string) *Store {
	if s != nil {
		s.driver = dir
	}
	return s
}

// Dir is where the store keeps its files ("" when off).
func (s *Store) Dir() string {
	if s == nil {
		return ""
	}
	return s.dir
}

// Chip is the part of a store that belongs to one identity. A nil *Chip never hits and saves nothing.
type Chip struct {
	store    *Store
	identity string
	chip     string
	base     string // file name prefix

	mu     sync.Mutex
	passes map[string]int // loaded lazily, then kept in step with the file
}

// Chip returns the store's entry for a chip as answered by the helper at helperPath.
func (s *Store) Chip(helperPath, chip string) (*Chip, error) {
	if s == nil || chip == "" {
		return nil, nil
	}
	d, err := s.helper(helperPath)
	if err != nil {
		return nil, err
	}
	id := chipIdentity(d, chip)
	return &Chip{store: s, identity: id, chip: chip, base: fileSafe(chip) + "-" + id[:24]}, nil
}

type passesFile struct {
	Format   int            `json:"format"`
	Identity string         `json:"identity"`
	Chip     string         `json:"chip"`
	Passes   map[string]int `json:"passes"` // sorted metric names joined by commas -> passes
}

// Metrics returns the chip's cached catalog. A missing, unreadable, truncated or foreign file is a miss.
func (c *Chip) Metrics() ([]contract.Metric, bool) {
	if c == nil {
		return nil, false
	}
	data, err := boundedread.File(filepath.Join(c.store.dir, c.base+metricsSuffix), metricsLimit)
	if err != nil {
		return nil, false
	}
	metrics, err := decodeMetrics(data, c.identity)
	if err != nil {
		return nil, false
	}
	return metrics, true
}

// SaveMetrics files the chip's catalog.
func (c *Chip) SaveMetrics(metrics []contract.Metric) error {
	if c == nil {
		return nil
	}
	// Sorted by name, so that building the counter catalog from a hit needs no sort.
	sorted := slices.Clone(metrics)
	slices.SortStableFunc(sorted, func(a, b contract.Metric) int { return strings.Compare(a.Name, b.Name) })
	return c.store.writeBytes(c.base+metricsSuffix, encodeMetrics(sorted, c.identity, c.chip))
}

// Passes returns the cached pass count of a metric set (its names sorted and joined by commas).
func (c *Chip) Passes(set string) (int, bool) {
	if c == nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadPassesLocked()
	n, ok := c.passes[set]
	return n, ok && n >= 1 // a count below one is no answer: ask the helper
}

// SavePasses files one pass count, merged with what the file holds now (another gorocprof may have
// added answers since this one read it).
func (c *Chip) SavePasses(set string, n int) error {
	return c.SaveAllPasses(map[string]int{set: n})
}

// SaveAllPasses files pass counts by metric set (names sorted and joined by commas) in one write,
// merged as SavePasses does.
func (c *Chip) SaveAllPasses(answers map[string]int) error {
	if c == nil || len(answers) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.passes = nil
	c.loadPassesLocked()
	maps.Copy(c.passes, answers)
	return c.store.write(c.base+".passes.json", passesFile{Format: formatVersion, Identity: c.identity, Chip: c.chip, Passes: c.passes})
}

func (c *Chip) loadPassesLocked() {
	if c.passes != nil {
		return
	}
	var f passesFile
	if !c.store.load(c.base+".passes.json", c.identity, &f, &f.Format, &f.Identity) || f.Passes == nil {
		f.Passes = map[string]int{}
	}
	c.passes = f.Passes
}

// Limits of what is read of a cache file: a catalog is tens of megabytes, the other entries small.
// A longer file is a miss. Variables so that tests can make them small.
var (
	metricsLimit int64 = 512 << 20
	entryLimit   int64 = 16 << 20
)

// load decodes a file into v and reports whether it is a usable entry of identity want: format and
// identity point into v at the fields the file names them in.
func (s *Store) load(name, want string, v any, format *int, identity *string) bool {
	data, err := boundedread.File(filepath.Join(s.dir, name), entryLimit)
	if err != nil {
		return false
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false
	}
	return *format == formatVersion && *identity == want
}

// write replaces a file whole with v as JSON: readers see the old file or the new one, never a part.
func (s *Store) write(name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("query cache: encoding %s: %w", name, err)
	}
	return s.writeBytes(name, data)
}

// writeBytes replaces a file whole with data (written aside, then renamed over it).
func (s *Store) writeBytes(name string, data []byte) error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("query cache: %w", err)
	}
	tmp, err := os.CreateTemp(s.dir, name+".*.tmp")
	if err != nil {
		return fmt.Errorf("query cache: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("query cache: writing %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(s.dir, name)); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("query cache: %w", err)
	}
	return nil
}

// fileSafe keeps a chip name usable as a file name prefix.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}
