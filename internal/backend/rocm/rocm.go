// Package rocm is the backend of AMD GPUs under ROCm. It profiles through rocprofiler-sdk, as
// rocprofv3 does: the SDK under the ROCm root (--rocm-root) loads the tool library named by
// ROCP_TOOL_LIBRARIES, and the query helper (gorocprof-query-rocm, run against the same SDK) lists
// the agents, each agent's counters and how many passes a counter set takes. Without the SDK the
// agents come from the KFD topology in sysfs and the counters from gorocprof's definitions, enough
// for `avail` and `plan` but not for a run.
package rocm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gorocprof/gorocprof/internal/backend/helper"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// Name is the backend's name on the command line.
const Name = "rocm"

// EnvSysfsRoot points agent discovery at another root than "/" (tests use fixture trees).
const EnvSysfsRoot = "GOROCPROF_SYSFS_ROOT"

// DefaultRoot is the ROCm root without --rocm-root or ROCM_PATH.
const DefaultRoot = "/opt/rocm"

// The variables the SDK is injected with (rocprofv3's launcher sets the same), beside
// contract.EnvSimInjection, through which the SDK emulator starts inside a simulated app.
const (
	EnvToolLibraries = "ROCP_TOOL_LIBRARIES"
	EnvLibraryCtor   = "ROCPROFILER_LIBRARY_CTOR"
	envPreload       = "LD_PRELOAD"
	envLibraryPath   = "LD_LIBRARY_PATH"
)

// HIPRuntime is the library every HIP application on AMD GPUs links against.
const HIPRuntime = "libamdhip64.so"

// KernelReplaySince is the first SDK with the KERNEL_REPLAY callback tracing domain.
const KernelReplaySince = "rocprofiler-sdk 1.4.1 (ROCm 10.1)"

// The backend's files: in the library directory, and the SDK under the ROCm root.
const (
	toolLibrary = "libgorocprof_tool_rocm.so"
	queryHelper = "gorocprof-query-rocm"
	sdkLibrary  = "lib/librocprofiler-sdk.so"
)

// Config is where the backend finds things, read once by its caller.
type Config struct {
	Root      string    // the ROCm root (--rocm-root); DefaultRoot when empty
	LibDir    string    // gorocprof's tool library directory ("" when it cannot be found)
	SysfsRoot string    // the KFD topology's root, "/" when empty
	Warnings  io.Writer // where the backend says it falls back to the KFD topology (nil: nowhere)
	// Preload and LibraryPath are the parent's LD_PRELOAD and LD_LIBRARY_PATH, which the SDK's
	// entries join rather than replace.
	Preload, LibraryPath string
}

// Backend is the AMD GPUs of one ROCm root.
type Backend struct {
	cfg          Config
	sdk          string // <root>/lib/librocprofiler-sdk.so, "" when missing
	tool, helper string // "" when not built

	mu       sync.Mutex
	agents   []contract.Agent
	info     *SDKInfo // the SDK's answer with the agents; nil when they came from the KFD topology
	catalogs map[int]*counters.Catalog
}

// New returns the backend of the ROCm root cfg.Root.
func New(cfg Config) *Backend {
	if cfg.Root == "" {
		cfg.Root = DefaultRoot
	}
	// Every path handed to the app's environment is absolute: an app (or a wrapper) that changes
	// directory before it starts HIP must still find the SDK and the tool.
	cfg.Root = absolute(cfg.Root)
	cfg.LibDir = absolute(cfg.LibDir)
	if cfg.SysfsRoot == "" {
		cfg.SysfsRoot = "/"
	}
	if cfg.Warnings == nil {
		cfg.Warnings = io.Discard
	}
	b := &Backend{cfg: cfg, catalogs: map[int]*counters.Catalog{}}
	if p := filepath.Join(cfg.Root, sdkLibrary); isFile(p) {
		b.sdk = p
	}
	if cfg.LibDir != "" {
		if p := filepath.Join(cfg.LibDir, toolLibrary); isFile(p) {
			b.tool = p
		}
		if p := filepath.Join(cfg.LibDir, queryHelper); isFile(p) {
			b.helper = p
		}
	}
	return b
}

// absolute is path made absolute against the working directory ("" stays "").
func absolute(path string) string {
	if path == "" {
		return path
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// HasSDK reports whether the ROCm root holds rocprofiler-sdk.
func (b *Backend) HasSDK() bool { return b.sdk != "" }

// Name is "rocm".
func (b *Backend) Name() string { return Name }

// Serves reports whether the executable at app links the HIP runtime.
func (b *Backend) Serves(app string) bool { return LinksHIP(app) }

// LinksHIP reports whether the executable at path is an ELF file that links libamdhip64.so, which
// is how `--backend auto` recognises a HIP application.
func LinksHIP(path string) bool { return helper.LinksLibrary(path, HIPRuntime) }

// Agents are the SDK's GPU agents, or the KFD topology's GPU nodes when the root has no SDK (or
// gorocprof's rocm query helper was not built), which the backend then says on its warnings.
func (b *Backend) Agents(ctx context.Context, _ *counters.Scope) ([]contract.Agent, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.agents != nil {
		return b.agents, nil
	}
	if b.sdk != "" && b.helper != "" {
		list, info, err := queryAgents(ctx, b.helper, b.queryEnv())
		if err != nil {
			return nil, fmt.Errorf("backend rocm: listing the agents of rocprofiler-sdk under %s: %w", b.cfg.Root, err)
		}
		b.agents, b.info = list, &info
		return list, nil
	}
	fmt.Fprintf(b.cfg.Warnings, "gorocprof: note: backend rocm: %s: agents from the KFD topology, counters from gorocprof's definitions\n", b.missing())
	list, err := DiscoverKFD(b.cfg.SysfsRoot)
	if err != nil {
		return nil, fmt.Errorf("backend rocm: %w", err)
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("backend rocm: the KFD topology under %s lists no GPU", b.cfg.SysfsRoot)
	}
	b.agents = list
	return list, nil
}

// missing says which of the SDK and the query helper is missing.
func (b *Backend) missing() string {
	if b.sdk == "" {
		return fmt.Sprintf("no rocprofiler-sdk under the ROCm root %s (%s is missing; --rocm-root names the root)",
			b.cfg.Root, filepath.Join(b.cfg.Root, sdkLibrary))
	}
	return fmt.Sprintf("gorocprof's %s is not built (%s)", queryHelper, b.cfg.LibDir)
}

// Catalog is the SDK's counter catalog of the agent, or the embedded AMD definitions of its
// architecture when the agents came from the KFD topology; whole whatever the scope.
func (b *Backend) Catalog(ctx context.Context, a contract.Agent, _ *counters.Scope) (*counters.Catalog, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.info == nil {
		return helper.AMDCatalog(a)
	}
	if cat := b.catalogs[a.Index]; cat != nil {
		return cat, nil
	}
	list, err := queryMetrics(ctx, b.helper, b.queryEnv(), a.Index)
	if err != nil {
		return nil, fmt.Errorf("backend rocm: reading the counters of %s: %w", a.Label(), err)
	}
	cat := counters.NewAMDSDK(a.Name, list, func(names []string) (int, error) {
		return queryPasses(ctx, b.helper, b.queryEnv(), a.Index, names)
	})
	b.catalogs[a.Index] = cat
	return cat, nil
}

// ErrNoKernelReplay marks an SDK without the kernel replay domain.
var ErrNoKernelReplay = errors.New("no kernel replay")

// KernelReplay is nil when the SDK replays kernels itself (its KERNEL_REPLAY domain); otherwise it
// says which SDK lacks it and which adds it. It is known once the agents have been listed.
func (b *Backend) KernelReplay() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.info == nil || b.info.KernelReplay {
		return nil
	}
	return fmt.Errorf("%w: rocprofiler-sdk %s under %s has no kernel replay domain (ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY); %s adds it",
		ErrNoKernelReplay, b.info.Version, b.cfg.Root, KernelReplaySince)
}

// Tool is the tool library and the variables that make the SDK load it into the application, as
// rocprofv3's launcher sets them. The SDK must be under the root and the tool library built.
func (b *Backend) Tool() (string, []string, error) {
	if b.sdk == "" {
		return "", nil, fmt.Errorf("%s: profiling on AMD GPUs needs it", b.missing())
	}
	if b.tool == "" {
		return "", nil, fmt.Errorf("tool file %s is missing (build it with `make`, or point %s at the directory holding it)",
			filepath.Join(b.cfg.LibDir, toolLibrary), helper.EnvLibDir)
	}
	return b.tool, []string{
		EnvToolLibraries + "=" + b.tool, // one path: the 2025 SDK drops the last entry of a colon list
		envPreload + "=" + joinList(b.cfg.Preload, b.sdk, " :"),
		envLibraryPath + "=" + b.libraryPath(),
		EnvLibraryCtor + "=1",
		contract.EnvSimInjection + "=" + b.sdk,
	}, nil
}

// libraryPath is LD_LIBRARY_PATH with the root's lib directory first, so that the tool's and the
// query helper's librocprofiler-sdk.so is the root's.
func (b *Backend) libraryPath() string {
	lib := filepath.Join(b.cfg.Root, "lib")
	if b.cfg.LibraryPath == "" {
		return lib
	}
	return lib + ":" + b.cfg.LibraryPath
}

// queryEnv is the query helper's environment: gorocprof's own, with the root's libraries first.
func (b *Backend) queryEnv() []string {
	return launch.Environ(os.Environ(), []string{envLibraryPath}, []string{envLibraryPath + "=" + b.libraryPath()})
}

// joinList appends item to a list whose entries are separated by any of seps (LD_PRELOAD takes
// spaces and colons), using a colon.
func joinList(list, item, seps string) string {
	if strings.Trim(list, seps) == "" {
		return item
	}
	return list + ":" + item
}

// NoRecords says why app wrote no record: the SDK loads the tool when HIP starts it.
func (b *Backend) NoRecords(app string) string {
	if path, err := launch.Resolve(app); err == nil && !LinksHIP(path) {
		return fmt.Sprintf("it does not link %s: is it a HIP application, or does it start one? (rocprofiler-sdk loads the tool library when HIP initialises)", HIPRuntime)
	}
	return "it never initialised HIP, whose start loads rocprofiler-sdk and the tool library"
}

// Traces is what rocprofiler-sdk traces for the flags, as rocprofv3 asks it.
var Traces = tracing.Table{
	Domains: map[tracing.Flag][]string{
		tracing.HIPRuntime:  {tracing.DomainHIPRuntime},
		tracing.HIPCompiler: {tracing.DomainHIPCompiler},
		tracing.HSA:         {tracing.DomainHSACore, tracing.DomainHSAAMDExt, tracing.DomainHSAImageExt, tracing.DomainHSAFinalize},
		tracing.Marker:      {tracing.DomainMarker},
		tracing.MemoryCopy:  {tracing.DomainMemoryCopy},
	},
}

// Traces is the backend's tracing table.
func (b *Backend) Traces() tracing.Table { return Traces }
