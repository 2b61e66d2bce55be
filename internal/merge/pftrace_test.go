package merge

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gorocprof/gorocprof/internal/perfetto"
)

// TestMergeHostsPftrace merges processes of two hosts, two of them with the same pid, into one
// Perfetto trace: each host is a machine of the trace named by its host, each process a process
// track of its host's machine, and every slice is on a track of its own process (its dispatch id,
// as the merged results.json gives the process's ids); the inputs of one host only make a trace
// without machines.
func TestMergeHostsPftrace(t *testing.T) {
	dir := t.TempDir()
	const n = 3
	type proc struct {
		host string
		pid  int
	}
	all := []proc{{"node2", 77}, {"node1", 77}, {"node1", 78}}
	var inputs []string
	for _, p := range all {
		path := filepath.Join(dir, fmt.Sprintf("%s_%d_results.json", p.host, p.pid))
		writeInputOn(t, path, p.host, p.pid, n)
		inputs = append(inputs, path)
	}
	for _, tc := range []struct {
		name     string
		inputs   []string
		machines []perfetto.DecodedMachine
	}{
		{"two hosts", inputs, []perfetto.DecodedMachine{{ID: 1, Name: "node1"}, {ID: 2, Name: "node2"}}},
		{"one host", inputs[1:], nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			var stdout bytes.Buffer
			if _, err := Run(context.Background(), Request{Inputs: tc.inputs, OutputDir: out, OutputFile: "merged",
				Formats: []string{"json", "pftrace"}, Quiet: true, Stdout: &stdout}); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(out, "merged_results.pftrace"))
			if err != nil {
				t.Fatal(err)
			}
			tr, err := perfetto.Decode(data)
			if err != nil {
				t.Fatalf("the merged trace does not read back: %v", err)
			}
			if fmt.Sprint(tr.Machines) != fmt.Sprint(tc.machines) {
				t.Errorf("machines %v, want %v", tr.Machines, tc.machines)
			}
			checkProcessSlices(t, tr, readResults(t, filepath.Join(out, "merged_results.json")), n*2)
		})
	}
}

// checkProcessSlices checks that every process of the merged results.json has one process track, on
// its host's machine, and that every slice is below the track of the process its dispatch belongs
// to, perProcess slices each.
func checkProcessSlices(t *testing.T, tr *perfetto.Decoded, els []resultsElement, perProcess int) {
	t.Helper()
	machine := map[string]uint32{}
	for _, m := range tr.Machines {
		machine[m.Name] = m.ID
	}
	type key struct {
		machine uint32
		pid     int32
	}
	tracks := map[uint64]perfetto.DecodedTrack{}
	procTrack := map[key]uint64{}
	for _, tk := range tr.Tracks {
		tracks[tk.UUID] = tk
		if tk.Parent == 0 {
			k := key{tk.Machine, tk.PID}
			if _, ok := procTrack[k]; ok {
				t.Errorf("pid %d of machine %d has two process tracks", tk.PID, tk.Machine)
			}
			procTrack[k] = tk.UUID
		}
	}
	if len(procTrack) != len(els) {
		t.Fatalf("%d process tracks for %d processes", len(procTrack), len(els))
	}
	owner := map[uint64]uint64{} // the process track of each dispatch id
	for _, el := range els {
		k := key{machine[el.Metadata.Hostname], int32(el.Metadata.PID)}
		u, ok := procTrack[k]
		if !ok {
			t.Fatalf("process %d of %s: no process track on machine %d", el.Metadata.PID, el.Metadata.Hostname, k.machine)
		}
		for _, id := range el.dispatchIDs() {
			owner[id] = u
		}
	}
	slices := map[uint64]int{}
	for _, s := range tr.Slices {
		root := s.Track
		for tracks[root].Parent != 0 {
			root = tracks[root].Parent
		}
		v, _ := s.Arg("dispatch_id")
		id, err := strconv.ParseUint(v, 10, 64)
		if err != nil || owner[id] != root {
			t.Errorf("slice %q of dispatch %s is below process track %d, want %d", s.Name, v, root, owner[id])
		}
		slices[root]++
	}
	for k, u := range procTrack {
		if slices[u] != perProcess {
			t.Errorf("pid %d of machine %d: %d slices, want %d", k.pid, k.machine, slices[u], perProcess)
		}
	}
}
