package launch

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// Backend names.
const (
	BackendAuto = "auto"
	BackendSim  = "sim"
	BackendCUDA = "cuda"
	BackendROCm = "rocm"
)

// Backends lists the names --backend accepts.
var Backends = []string{BackendAuto, BackendSim, BackendCUDA, BackendROCm}

// SimRuntimeSoname is the library every app of the simulated agent links against.
const SimRuntimeSoname = "libgorocprof_sim.so"

// Backend is one way of getting the tool library into the application.
type Backend struct {
	Name        string
	ToolLibrary string // absolute path of the injected library
	QueryHelper string // absolute path of the query helper
}

// toolFiles names each backend's files inside the library directory.
var toolFiles = map[string][2]string{
	BackendSim:  {"libgorocprof_tool_sim.so", "gorocprof-query-sim"},
	BackendCUDA: {"libgorocprof_tool_cuda.so", "gorocprof-query-cuda"},
}

// ErrBackend marks errors choosing or finding a backend.
var ErrBackend = errors.New("backend")

// FindBackend returns the named backend (not auto) with its files checked.
func FindBackend(name, libDir string) (Backend, error) {
	if !slices.Contains(Backends, name) {
		return Backend{}, fmt.Errorf("%w: unknown backend %q (expected one of %s)", ErrBackend, name, strings.Join(Backends, ", "))
	}
	if name == BackendROCm {
		return Backend{}, fmt.Errorf("%w rocm: profiling AMD GPUs needs the rocm tool library (rocprofiler-sdk), which this version of gorocprof does not build; `avail` and `plan` work with --backend rocm (agents from the KFD topology), profiling with --backend sim or cuda", ErrBackend)
	}
	files := toolFiles[name]
	b := Backend{Name: name, ToolLibrary: filepath.Join(libDir, files[0]), QueryHelper: filepath.Join(libDir, files[1])}
	for _, p := range []string{b.ToolLibrary, b.QueryHelper} {
		if _, err := os.Stat(p); err != nil {
			hint := "build it with `make`"
			if name == BackendCUDA {
				hint = "it is built by `make` on a machine with a CUDA toolkit"
			}
			return Backend{}, fmt.Errorf("%w %s: tool file %s is missing (%s, or point %s at the directory holding it)", ErrBackend, name, p, hint, EnvLibDir)
		}
	}
	return b, nil
}

// LinksSimRuntime reports whether the executable at path is an ELF file that links the simulated
// agent's runtime, which is how `--backend auto` recognises apps of the simulated agent.
func LinksSimRuntime(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		return false
	}
	return slices.ContainsFunc(libs, func(l string) bool { return strings.HasPrefix(l, SimRuntimeSoname) })
}

// InjectionEnv returns the environment of the child: the parent's environment, the contract
// variables, and the backend's injection variable.
func (b Backend) InjectionEnv(base []string, runDir, planPath, logLevel string) []string {
	env := make([]string, 0, len(base)+6)
	drop := []string{contract.EnvContract, contract.EnvRunDir, contract.EnvPlan, contract.EnvLogLevel,
		contract.EnvSimInjection, contract.EnvCUDAInjection, contract.EnvCacheControl}
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(drop, k) {
			env = append(env, kv)
		}
	}
	env = append(env,
		fmt.Sprintf("%s=%d", contract.EnvContract, contract.Version),
		contract.EnvRunDir+"="+runDir,
		contract.EnvPlan+"="+planPath,
		contract.EnvLogLevel+"="+logLevel,
	)
	switch b.Name {
	case BackendSim:
		env = append(env, contract.EnvSimInjection+"="+b.ToolLibrary)
	case BackendCUDA:
		env = append(env, contract.EnvCUDAInjection+"="+b.ToolLibrary)
	}
	return env
}
