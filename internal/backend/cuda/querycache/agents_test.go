package querycache

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

const h200Information = `Model: 		 NVIDIA H200
IRQ:   		 0
GPU UUID: 	 GPU-269e8af9-a18a-0391-bb41-6134e5a1ef2d
Bus Location: 	 0000:00:06.0
Device Minor: 	 0
`

// agentMachine is a fixture NVIDIA machine: a driver /proc tree with one H200, a driver version and a
// helper, and no visibility variable set.
type agentMachine struct {
	proc, helper, cache string
}

func newAgentMachine(t *testing.T) agentMachine {
	t.Helper()
	dir := t.TempDir()
	m := agentMachine{proc: filepath.Join(dir, "proc"), helper: filepath.Join(dir, "helper"), cache: filepath.Join(dir, "cache")}
	for _, d := range []string{"gpus/0000:00:06.0", "capabilities/mig"} {
		if err := os.MkdirAll(filepath.Join(m.proc, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(m.proc, "gpus/0000:00:06.0/information"), h200Information)
	writeFile(t, filepath.Join(m.proc, "capabilities/mig/config"), "DeviceFileMinor: 1\n")
	writeFile(t, filepath.Join(m.proc, "version"), "NVRM version: 570.86.15\n")
	writeFile(t, m.helper, "#!/bin/sh\n")
	for _, name := range visibilityEnv {
		unsetenv(t, name)
	}
	return m
}

func (m agentMachine) entry(t *testing.T) *Agents {
	t.Helper()
	a, err := m.store().Agents(m.helper)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// store is a store in the machine's cache reading its driver directory.
func (m agentMachine) store() *Store { return At(m.cache).Driver(m.proc) }

// unsetenv unsets a variable for the test and restores it afterwards.
func unsetenv(t *testing.T, name string) {
	t.Setenv(name, "")
	if err := os.Unsetenv(name); err != nil {
		t.Fatal(err)
	}
}

func setVisible(v string) func(*testing.T) {
	return func(t *testing.T) { t.Setenv("CUDA_VISIBLE_DEVICES", v) }
}

var h200Agents = []contract.Agent{{
	ID: 1, Name: "NVIDIA H200", ProductName: "NVIDIA H200", Vendor: "NVIDIA", Type: "GPU",
	Props:   map[string]int64{"sm_count": 132, "local_mem_size": 150109880320},
	Strings: map[string]string{"uuid": "GPU-269e8af9-a18a-0391-bb41-6134e5a1ef2d", "chip": "GH100"},
}}

// The agent list is used again only on the same machine, helper and visibility variables.
func TestAgentsIdentity(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before func(t *testing.T) // the environment the list is saved in
		change func(t *testing.T, m agentMachine)
		hit    bool
	}{
		{"nothing changed", nil, func(*testing.T, agentMachine) {}, true},
		{"a capability file's content changed", nil, func(t *testing.T, m agentMachine) {
			writeFile(t, filepath.Join(m.proc, "capabilities/mig/config"), "DeviceFileMinor: 2\n")
		}, true},
		{"information text changed", nil, func(t *testing.T, m agentMachine) {
			writeFile(t, filepath.Join(m.proc, "gpus/0000:00:06.0/information"), h200Information+"GPU Excluded:	 No\n")
		}, false},
		{"another GPU appeared", nil, func(t *testing.T, m agentMachine) {
			if err := os.Mkdir(filepath.Join(m.proc, "gpus/0000:00:07.0"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(m.proc, "gpus/0000:00:07.0/information"), h200Information)
		}, false},
		{"a capabilities entry appeared (MIG instance)", nil, func(t *testing.T, m agentMachine) {
			if err := os.MkdirAll(filepath.Join(m.proc, "capabilities/gpu0/mig/gi1"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(m.proc, "capabilities/gpu0/mig/gi1/access"), "DeviceFileMinor: 3\n")
		}, false},
		{"CUDA_VISIBLE_DEVICES kept", setVisible("0"), func(*testing.T, agentMachine) {}, true},
		{"CUDA_VISIBLE_DEVICES set", nil, func(t *testing.T, _ agentMachine) { t.Setenv("CUDA_VISIBLE_DEVICES", "1") }, false},
		{"CUDA_VISIBLE_DEVICES changed", setVisible("0"), func(t *testing.T, _ agentMachine) { t.Setenv("CUDA_VISIBLE_DEVICES", "1") }, false},
		{"CUDA_VISIBLE_DEVICES unset to empty", nil, func(t *testing.T, _ agentMachine) { t.Setenv("CUDA_VISIBLE_DEVICES", "") }, false},
		{"CUDA_VISIBLE_DEVICES empty to unset", setVisible(""), func(t *testing.T, _ agentMachine) { unsetenv(t, "CUDA_VISIBLE_DEVICES") }, false},
		{"CUDA_DEVICE_ORDER set", nil, func(t *testing.T, _ agentMachine) { t.Setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID") }, false},
		{"NVIDIA_VISIBLE_DEVICES set", nil, func(t *testing.T, _ agentMachine) { t.Setenv("NVIDIA_VISIBLE_DEVICES", "all") }, false},
		{"helper rebuilt", nil, func(t *testing.T, m agentMachine) { writeFile(t, m.helper, "#!/bin/sh\n# rebuilt\n") }, false},
		{"driver updated", nil, func(t *testing.T, m agentMachine) {
			writeFile(t, filepath.Join(m.proc, "version"), "NVRM version: 575.51.03\n")
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newAgentMachine(t)
			if tc.before != nil {
				tc.before(t)
			}
			if _, ok := m.entry(t).Load(); ok {
				t.Fatal("an empty cache hit")
			}
			if err := m.entry(t).Save(h200Agents); err != nil {
				t.Fatal(err)
			}
			tc.change(t, m)
			got, ok := m.entry(t).Load()
			if ok != tc.hit {
				t.Fatalf("hit = %v, want %v", ok, tc.hit)
			}
			if ok && !reflect.DeepEqual(got, h200Agents) {
				t.Errorf("cached agents differ:\n%+v\n%+v", got, h200Agents)
			}
		})
	}
}

// Without a GPU listed by the NVIDIA driver (CI, simulated agents) there is no agent cache at all.
func TestAgentsNoNVIDIAGPU(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, m agentMachine)
	}{
		{"no gpus directory", func(t *testing.T, m agentMachine) {
			if err := os.RemoveAll(filepath.Join(m.proc, "gpus")); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty gpus directory", func(t *testing.T, m agentMachine) {
			if err := os.RemoveAll(filepath.Join(m.proc, "gpus/0000:00:06.0")); err != nil {
				t.Fatal(err)
			}
		}},
		{"no driver at all", func(t *testing.T, m agentMachine) {
			if err := os.RemoveAll(m.proc); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newAgentMachine(t)
			tc.setup(t, m)
			a := m.entry(t)
			if a != nil {
				t.Fatalf("an agent cache entry %s", a.name)
			}
			if err := a.Save(h200Agents); err != nil {
				t.Fatal(err)
			}
			if _, ok := a.Load(); ok {
				t.Error("no entry hit")
			}
			if _, err := os.Stat(m.cache); !os.IsNotExist(err) {
				t.Errorf("something was saved in %s: %v", m.cache, err)
			}
		})
	}
}

// Damaged, foreign or empty files are misses; a reply with no agent is never filed.
func TestAgentsDamagedAndEmpty(t *testing.T) {
	m := newAgentMachine(t)
	a := m.entry(t)
	path := filepath.Join(m.cache, a.name)
	if err := a.Save([]contract.Agent{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("an empty agent list was filed: %v", err)
	}
	if err := os.MkdirAll(m.cache, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		"{not json",
		`{"format":1,"identity":"someone else","agents":[{"index":0}]}`,
		`{"format":99,"identity":"` + a.identity + `","agents":[{"index":0}]}`,
		`{"format":1,"identity":"` + a.identity + `","agents":[]}`,
	} {
		writeFile(t, path, text)
		if _, ok := m.entry(t).Load(); ok {
			t.Errorf("%s: hit", text)
		}
		if err := m.entry(t).Save(h200Agents); err != nil {
			t.Fatal(err)
		}
		if got, ok := m.entry(t).Load(); !ok || !reflect.DeepEqual(got, h200Agents) {
			t.Errorf("%s: after saving, agents = %+v, %v", text, got, ok)
		}
	}
	if a, err := (*Store)(nil).Agents(m.helper); a != nil || err != nil {
		t.Errorf("a nil store gave %v, %v", a, err)
	}
	if a, err := m.store().Agents(filepath.Join(m.proc, "no-helper")); err == nil {
		t.Errorf("a missing helper fingerprinted: %v", a)
	}
}

// One store (one planning run) reads its helper once for the agent list and every chip, and again
// only when the helper changes on disk.
func TestStoreFingerprintsHelperOnce(t *testing.T) {
	m := newAgentMachine(t)
	s := m.store()
	agents, err := s.Agents(m.helper)
	if err != nil || agents == nil {
		t.Fatalf("agents entry: %v, %v", agents, err)
	}
	gh := chipOf(t, s, m.helper, "GH100")
	chipOf(t, s, m.helper, "GB100")
	if s.fingerprints != 1 {
		t.Fatalf("helper fingerprinted %d times for agents and two chips, want 1", s.fingerprints)
	}
	// The memo gives the identity a fresh fingerprint would.
	if id, err := identity(m.store(), m.helper, "GH100"); err != nil || id != gh.identity {
		t.Fatalf("memoised identity %s, fresh %s (%v)", gh.identity, id, err)
	}
	s.fingerprints = 0
	writeFile(t, m.helper, "#!/bin/sh\n# rebuilt\n")
	if rebuilt := chipOf(t, s, m.helper, "GH100"); rebuilt.identity == gh.identity {
		t.Error("a rebuilt helper kept its old identity in the same store")
	}
	if s.fingerprints != 1 {
		t.Errorf("a rebuilt helper was fingerprinted %d times, want 1", s.fingerprints)
	}
}
