package rocm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/boundedread"
	"github.com/gorocprof/gorocprof/internal/contract"
)

// kfdNodes is where the amdgpu driver publishes its topology, one directory per NUMA node (CPUs
// and GPUs alike).
const kfdNodes = "sys/class/kfd/kfd/topology/nodes"

const amdVendorID = 0x1002

// DiscoverKFD reads the KFD topology under root ("/" on a live system) and returns its GPU nodes in
// node order. Index is the GPU's ordinal among GPU nodes (the order the HSA runtime enumerates
// them); ID is the KFD node number, stable on one machine. Properties keep their KFD names (lower
// case) and gain cu_count, node_id and gpu_id.
func DiscoverKFD(root string) ([]contract.Agent, error) {
	dir := filepath.Join(root, kfdNodes)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the KFD topology: %w", err)
	}
	var nodes []int
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && e.IsDir() && n >= 0 {
			nodes = append(nodes, n)
		}
	}
	sort.Ints(nodes)
	agents := []contract.Agent{}
	for _, node := range nodes {
		a, gpu, err := readNode(root, filepath.Join(dir, strconv.Itoa(node)), node)
		if err != nil {
			return nil, err
		}
		if gpu {
			a.Index = len(agents)
			agents = append(agents, a)
		}
	}
	return agents, nil
}

func readNode(root, dir string, node int) (contract.Agent, bool, error) {
	props, big, err := readProperties(filepath.Join(dir, "properties"))
	if err != nil {
		return contract.Agent{}, false, err
	}
	if props["simd_count"] <= 0 {
		return contract.Agent{}, false, nil
	}
	version := props["gfx_target_version"]
	target, err := gfxTarget(version)
	if err != nil {
		return contract.Agent{}, false, fmt.Errorf("KFD node %d (%s): %w", node, dir, err)
	}
	if per := props["simd_per_cu"]; per > 0 {
		props["cu_count"] = props["simd_count"] / per
	}
	props["node_id"] = int64(node)
	name, err := readOptional(filepath.Join(dir, "name"))
	if err != nil {
		return contract.Agent{}, false, err
	}
	gpuID, err := readOptional(filepath.Join(dir, "gpu_id"))
	if err != nil {
		return contract.Agent{}, false, err
	}
	if gpuID != "" {
		id, err := strconv.ParseInt(gpuID, 10, 64)
		if err != nil {
			return contract.Agent{}, false, fmt.Errorf("KFD node %d: gpu_id %q is not an integer of 64 bits", node, gpuID)
		}
		props["gpu_id"] = id
	}
	a := contract.Agent{
		ID:      uint64(node),
		Name:    target,
		Vendor:  vendorName(props["vendor_id"]),
		Type:    "GPU",
		Props:   props,
		Strings: map[string]string{"uuid": "", "pci_bus_id": pciBusID(props), "compute_capability": "", "kfd_name": name},
	}
	if id := big["unique_id"]; id != 0 {
		a.Strings["uuid"] = fmt.Sprintf("GPU-%016x", id)
	}
	if hive := big["hive_id"]; hive != 0 {
		a.Strings["hive_id"] = strconv.FormatUint(hive, 10)
	}
	if minor, ok := props["drm_render_minor"]; ok {
		product, err := readOptional(filepath.Join(root, "sys/class/drm", fmt.Sprintf("renderD%d", minor), "device/product_name"))
		if err != nil {
			return contract.Agent{}, false, err
		}
		a.ProductName = product
	}
	return a, true, nil
}

// hashKeys are 64-bit identifiers rather than quantities; they often exceed int64, so they live in
// the agent's strings (unique_id as the uuid) and never among its integer properties.
var hashKeys = map[string]bool{"unique_id": true, "hive_id": true}

// Limits of what is read of a sysfs file: a properties file holds a few dozen lines, the others one
// short value. A longer one is not the driver's (a planted /dev/zero never ends).
const (
	propertiesLimit = 64 << 10
	valueLimit      = 4 << 10
)

// readProperties reads a node's properties file.
func readProperties(path string) (map[string]int64, map[string]uint64, error) {
	data, err := boundedread.File(path, propertiesLimit)
	if err != nil {
		return nil, nil, fmt.Errorf("reading KFD node properties: %w", err)
	}
	return parseProperties(path, data)
}

// parseProperties parses "key value" lines. Every value is also returned unsigned, for the hash
// keys; any other value must fit int64, or it would read as 0 (a node without SIMDs is a CPU).
func parseProperties(path string, data []byte) (map[string]int64, map[string]uint64, error) {
	props, big := map[string]int64{}, map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, propertiesLimit)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			return nil, nil, fmt.Errorf("%s:%d: want \"name value\", found %q", path, line, sc.Text())
		}
		key := strings.ToLower(fields[0])
		u, err := strconv.ParseUint(fields[1], 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %s value %q is not an unsigned integer", path, line, key, fields[1])
		}
		big[key] = u
		switch {
		case hashKeys[key]:
		case u > math.MaxInt64:
			return nil, nil, fmt.Errorf("%s:%d: %s value %d is out of range (at most %d)", path, line, key, u, int64(math.MaxInt64))
		default:
			props[key] = int64(u)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return props, big, nil
}

func readOptional(path string) (string, error) {
	b, err := boundedread.File(path, valueLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// gfxTarget turns KFD's gfx_target_version (major*10000 + minor*100 + stepping) into the name the
// counter definitions use; minor and stepping are written in hex (90010 -> gfx90a).
func gfxTarget(version int64) (string, error) {
	major, minor, step := version/10000, version/100%100, version%100
	if version <= 0 || major == 0 || minor > 15 || step > 15 {
		return "", fmt.Errorf("gfx_target_version %d is not a GFX target", version)
	}
	return fmt.Sprintf("gfx%d%x%x", major, minor, step), nil
}

func vendorName(id int64) string {
	if id == amdVendorID {
		return "AMD"
	}
	return fmt.Sprintf("0x%04x", id)
}

// pciBusID formats domain and location_id (bus << 8 | device << 3 | function) as lspci does.
func pciBusID(props map[string]int64) string {
	loc, ok := props["location_id"]
	if !ok {
		return ""
	}
	return fmt.Sprintf("%04x:%02x:%02x.%x", props["domain"], loc>>8&0xff, loc>>3&0x1f, loc&0x7)
}
