package querycache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/gorocprof/gorocprof/internal/boundedread"
	"github.com/gorocprof/gorocprof/internal/contract"
)

// DriverDir is the NVIDIA kernel driver's /proc directory, whose version names the driver and whose
// gpus/ and capabilities/ describe the GPUs and MIG instances the helper can see.
const DriverDir = "/proc/driver/nvidia"

// visibilityEnv are the variables that change which GPUs CUDA enumerates, and in what order.
var visibilityEnv = []string{"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES"}

// Agents is the store's entry for the agent list a helper gives on this machine. A nil *Agents never
// hits and saves nothing.
type Agents struct {
	store    *Store
	identity string
	name     string
}

type agentsFile struct {
	Format   int              `json:"format"`
	Identity string           `json:"identity"`
	Agents   []contract.Agent `json:"agents"`
}

// Agents returns the store's entry for the agents the helper at helperPath lists on this machine. A
// machine whose driver lists no GPU under the driver directory has no entry (nil): without that the key could
// not tell one machine's GPUs from another's, and CI or simulated agents need no cache.
func (s *Store) Agents(helperPath string) (*Agents, error) {
	if s == nil {
		return nil, nil
	}
	machine, err := machineFingerprint(s.driver)
	if err != nil || machine == "" {
		return nil, err
	}
	d, err := s.helper(helperPath)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "gorocprof query cache %d\nagents\n%shelper %x\n", formatVersion, machine, d)
	id := hex.EncodeToString(h.Sum(nil))
	return &Agents{store: s, identity: id, name: "agents-" + id[:24] + ".json"}, nil
}

// Load returns the cached agent list. A missing, unreadable, foreign or empty file is a miss.
func (a *Agents) Load() ([]contract.Agent, bool) {
	if a == nil {
		return nil, false
	}
	var f agentsFile
	if !a.store.load(a.name, a.identity, &f, &f.Format, &f.Identity) || len(f.Agents) == 0 {
		return nil, false
	}
	return f.Agents, true
}

// Save files the agent list. An empty list is not filed: a machine whose GPUs the helper did not see
// (a driver just loading, a GPU held by another container) asks again next time.
func (a *Agents) Save(list []contract.Agent) error {
	if a == nil || len(list) == 0 {
		return nil
	}
	return a.store.write(a.name, agentsFile{Format: formatVersion, Identity: a.identity, Agents: list})
}

// machineFingerprint describes what, besides the helper, decides which agents CUDA lists: every GPU's
// information file (model, UUID, bus location: a swapped or moved GPU changes it), the names under
// capabilities/ (MIG instances appear there) and the visibility variables. It is "" when the driver
// lists no GPU.
func machineFingerprint(driver string) (string, error) {
	gpus := filepath.Join(driver, "gpus")
	entries, err := os.ReadDir(gpus)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(entries) == 0) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("query cache: listing GPUs: %w", err)
	}
	h := sha256.New()
	for _, e := range entries { // ReadDir sorts by name
		data, err := boundedread.File(filepath.Join(gpus, e.Name(), "information"), procFileLimit)
		if err != nil {
			return "", fmt.Errorf("query cache: reading GPU information: %w", err)
		}
		fmt.Fprintf(h, "gpu %s %d\n%s\n", e.Name(), len(data), data)
	}
	caps, err := capabilityNames(filepath.Join(driver, "capabilities"))
	if err != nil {
		return "", err
	}
	for _, name := range caps {
		fmt.Fprintf(h, "capability %s\n", name)
	}
	for _, name := range visibilityEnv {
		if v, ok := os.LookupEnv(name); ok {
			fmt.Fprintf(h, "env %s set %q\n", name, v)
		} else {
			fmt.Fprintf(h, "env %s unset\n", name)
		}
	}
	return fmt.Sprintf("machine %x\n", h.Sum(nil)), nil
}

// capabilityNames lists the paths under dir, relative and sorted; none when dir does not exist.
func capabilityNames(dir string) ([]string, error) {
	var names []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if path != dir {
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("query cache: listing GPU capabilities: %w", err)
	}
	slices.Sort(names)
	return names, nil
}
