package rocm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/golden"
)

// The fixture trees copy the layout and values of real KFD topologies: a one-socket host with an
// MI210, and a two-socket host with two of its MI300X GPUs.
func TestDiscoverKFD(t *testing.T) {
	for _, machine := range []string{"mi210", "mi300x"} {
		t.Run(machine, func(t *testing.T) {
			agents, err := DiscoverKFD(filepath.Join("testdata", "kfd", machine))
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(agents, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden.Check(t, filepath.Join("testdata", "kfd", machine+".golden.json"), got)
		})
	}
}

func TestDiscoverKFDFacts(t *testing.T) {
	tests := []struct {
		machine                  string
		index                    int
		name, product, bus, uuid string
		id                       uint64
		cus, xcc, gpuID, nodeID  int64
	}{
		{"mi210", 0, "gfx90a", "", "0000:03:00.0", "GPU-bb7f934622f924a5", 1, 104, 1, 52215, 1},
		{"mi300x", 0, "gfx942", "AMD Instinct MI300X", "0000:0c:00.0", "GPU-8383a3dcae34983e", 2, 304, 8, 11995, 2},
		{"mi300x", 1, "gfx942", "AMD Instinct MI300X", "0000:20:00.0", "GPU-2bc60768859d53fd", 3, 304, 8, 39342, 3},
	}
	for _, tt := range tests {
		agents, err := DiscoverKFD(filepath.Join("testdata", "kfd", tt.machine))
		if err != nil {
			t.Fatal(err)
		}
		a := agents[tt.index]
		if a.Index != tt.index || a.Name != tt.name || a.ProductName != tt.product || a.ID != tt.id || a.Vendor != "AMD" || a.Type != "GPU" {
			t.Errorf("%s agent %d = %+v", tt.machine, tt.index, a)
		}
		if a.Strings["pci_bus_id"] != tt.bus || a.Strings["uuid"] != tt.uuid {
			t.Errorf("%s agent %d strings = %v, want bus %s uuid %s", tt.machine, tt.index, a.Strings, tt.bus, tt.uuid)
		}
		p := a.Props
		if p["cu_count"] != tt.cus || p["num_xcc"] != tt.xcc || p["gpu_id"] != tt.gpuID || p["node_id"] != tt.nodeID || p["wave_front_size"] != 64 {
			t.Errorf("%s agent %d props = %v", tt.machine, tt.index, p)
		}
		if a.Strings["hive_id"] != "4767426868018475546" && tt.machine == "mi300x" {
			t.Errorf("%s agent %d: hive_id = %q", tt.machine, tt.index, a.Strings["hive_id"])
		}
		if _, ok := p["unique_id"]; ok {
			t.Errorf("%s agent %d: unique_id kept as an integer property", tt.machine, tt.index)
		}
	}
}

func TestGfxTarget(t *testing.T) {
	tests := []struct {
		version int64
		want    string
	}{
		{90010, "gfx90a"}, {90402, "gfx942"}, {90400, "gfx940"}, {90500, "gfx950"}, {90008, "gfx908"},
		{100300, "gfx1030"}, {110000, "gfx1100"}, {120001, "gfx1201"}, {90012, "gfx90c"},
	}
	for _, tt := range tests {
		if got, err := gfxTarget(tt.version); err != nil || got != tt.want {
			t.Errorf("gfxTarget(%d) = %q, %v; want %q", tt.version, got, err, tt.want)
		}
	}
	for _, bad := range []int64{0, -1, 42, 91600, 90016} {
		if got, err := gfxTarget(bad); err == nil {
			t.Errorf("gfxTarget(%d) = %q, want an error", bad, got)
		}
	}
}

func writeNode(t *testing.T, root string, node, properties string) {
	t.Helper()
	dir := filepath.Join(root, kfdNodes, node)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "properties"), []byte(properties), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscoverKFDOrderAndErrors(t *testing.T) {
	root := t.TempDir()
	gpu := "simd_count 8\nsimd_per_cu 4\ngfx_target_version 110000\nvendor_id 4098\n"
	writeNode(t, root, "10", gpu)
	writeNode(t, root, "9", strings.Replace(gpu, "110000", "100300", 1))
	writeNode(t, root, "0", "cpu_cores_count 8\nsimd_count 0\n")
	if err := os.MkdirAll(filepath.Join(root, kfdNodes, "not-a-node"), 0o755); err != nil {
		t.Fatal(err)
	}
	agents, err := DiscoverKFD(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(agents) != 2 || agents[0].Name != "gfx1030" || agents[0].ID != 9 || agents[1].Name != "gfx1100" || agents[1].Index != 1 {
		t.Errorf("agents = %+v, want node 9 (gfx1030) then node 10 (gfx1100)", agents)
	}
	if agents[0].Strings["pci_bus_id"] != "" || agents[0].ProductName != "" {
		t.Errorf("agent without location_id or product name: %+v", agents[0])
	}

	none := t.TempDir()
	writeNode(t, none, "0", "cpu_cores_count 8\nsimd_count 0\n")
	if agents, err := DiscoverKFD(none); err != nil || agents == nil || len(agents) != 0 {
		t.Errorf("CPU-only topology = %v, %v; want an empty list", agents, err)
	}

	tests := []struct {
		properties, want string
	}{
		{"simd_count 8\nsimd_per_cu\n", `properties:2: want "name value"`},
		{"simd_count eight\n", `simd_count value "eight" is not an unsigned integer`},
		{"simd_count 8\ngfx_target_version 0\n", "KFD node 1 ("},
		{"simd_count 8\ngfx_target_version 0\n", "gfx_target_version 0 is not a GFX target"},
	}
	for _, tt := range tests {
		bad := t.TempDir()
		writeNode(t, bad, "1", tt.properties)
		if _, err := DiscoverKFD(bad); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("properties %q: error %v, want containing %q", tt.properties, err, tt.want)
		}
	}
	if _, err := DiscoverKFD(filepath.Join(root, "missing")); err == nil || !strings.Contains(err.Error(), "reading the KFD topology") {
		t.Errorf("missing topology: %v", err)
	}
}
