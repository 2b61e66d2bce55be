package backend

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend/cuda/querycache"
	"github.com/gorocprof/gorocprof/internal/backend/helper"
	"github.com/gorocprof/gorocprof/internal/backend/rocm"
	"github.com/gorocprof/gorocprof/internal/counters"
)

func TestChoose(t *testing.T) {
	lib := t.TempDir()
	t.Setenv(helper.EnvLibDir, lib)
	t.Setenv(rocm.EnvSysfsRoot, t.TempDir())
	root := t.TempDir()
	ctx := context.Background()
	for _, tc := range []struct{ name, app, want string }{
		{"opencl", "", `backend: unknown backend "opencl" (expected one of auto, sim, cuda, rocm)`},
		{"sim", "", "backend sim: tool file " + filepath.Join(lib, "libgorocprof_tool_sim.so") + " is missing"},
		{"cuda", "sh", "backend cuda: tool file " + filepath.Join(lib, "libgorocprof_tool_cuda.so") + " is missing"},
		{"rocm", "sh", "backend rocm: no rocprofiler-sdk under the ROCm root " + root + " (" + filepath.Join(root, "lib/librocprofiler-sdk.so") +
			" is missing; --rocm-root names the root): profiling on AMD GPUs needs it"},
		{"auto", "sh", "backend auto: no usable backend for sh: the ROCm root " + root + " has no rocprofiler-sdk (lib/librocprofiler-sdk.so) and CUDA is not usable (backend cuda: tool file"},
	} {
		b, err := Choose(ctx, Choice{Name: tc.name, ROCmRoot: root}, tc.app)
		if !errors.Is(err, ErrBackend) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Choose(%q, %q) = %v, %v; want %q", tc.name, tc.app, b, err, tc.want)
		}
	}
	// rocm plans without a tool library; auto without an application falls back to the sim.
	if b, err := Choose(ctx, Choice{Name: "rocm", ROCmRoot: root}, ""); err != nil || b.Name() != "rocm" {
		t.Errorf("Choose(rocm) = %v, %v", b, err)
	}
	for _, f := range []string{"libgorocprof_tool_sim.so", "gorocprof-query-sim"} {
		if err := os.WriteFile(filepath.Join(lib, f), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"auto", "", "sim"} {
		if b, err := Choose(ctx, Choice{Name: name}, ""); err != nil || b.Name() != "sim" {
			t.Errorf("Choose(%q) with the sim's files = %v, %v", name, b, err)
		}
	}
}

// auto picks CUDA for an app that does not link the sim runtime when the CUDA helper lists a GPU, and
// falls back to the sim for avail and plan (no app) when it lists none.
func TestChooseAutoCUDA(t *testing.T) {
	for _, tc := range []struct {
		agents, app, want string
	}{
		{`[{"index":0,"id":1,"name":"GH100","strings":{"chip":"GH100"}}]`, "sh", "cuda"},
		{`[]`, "", "sim"},
	} {
		lib := t.TempDir()
		t.Setenv(helper.EnvLibDir, lib)
		t.Setenv(querycache.EnvCache, "off")
		files := map[string]string{
			"libgorocprof_tool_cuda.so": "", "libgorocprof_tool_sim.so": "", "gorocprof-query-sim": "",
			"gorocprof-query-cuda": "#!/bin/sh\necho '{\"version\":1,\"backend\":\"cuda\",\"agents\":" + tc.agents + "}'\n",
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(lib, name), []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		b, err := Choose(context.Background(), Choice{Name: Auto, ROCmRoot: t.TempDir()}, tc.app)
		if err != nil || b.Name() != tc.want {
			t.Errorf("agents %s, app %q: Choose(auto) = %v, %v; want %s", tc.agents, tc.app, b, err, tc.want)
		}
	}
}

// linkedApp builds, with the system's C compiler, an executable in dir that links a library named
// soname (itself built empty there): the fixture of an application of some runtime. ELF files are
// built rather than checked in, so that the fixture is what the linker writes on this machine.
func linkedApp(t *testing.T, dir, soname string) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc) to build the ELF fixtures")
	}
	src := filepath.Join(dir, "main.c")
	if err := os.WriteFile(src, []byte("int main(void) { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, soname)
	app := filepath.Join(dir, strings.TrimSuffix(strings.TrimPrefix(soname, "lib"), ".so")+"-app")
	name := strings.TrimSuffix(strings.TrimPrefix(soname, "lib"), ".so")
	for _, args := range [][]string{
		{"-shared", "-fPIC", "-o", lib, "-Wl,-soname," + soname, "-x", "c", "/dev/null"},
		{"-o", app, src, "-L" + dir, "-Wl,--no-as-needed", "-l" + name},
	} {
		if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Fatalf("cc %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return app
}

// auto picks rocm for a HIP application (one that links libamdhip64.so) and for an app that links
// neither HIP nor CUDA when the ROCm root holds rocprofiler-sdk, says --backend rocm and --rocm-root
// when it does not, keeps the sim for an app of the simulated agents whatever the root holds, and
// never takes a CUDA application to rocm.
func TestChooseAutoHIP(t *testing.T) {
	fixtures := t.TempDir()
	hip := linkedApp(t, fixtures, "libamdhip64.so")
	simApp := linkedApp(t, fixtures, "libgorocprof_sim.so")
	lib := t.TempDir()
	t.Setenv(helper.EnvLibDir, lib)
	for _, f := range []string{"libgorocprof_tool_rocm.so", "gorocprof-query-rocm", "libgorocprof_tool_sim.so", "gorocprof-query-sim"} {
		if err := os.WriteFile(filepath.Join(lib, f), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	withSDK := t.TempDir()
	if err := os.MkdirAll(filepath.Join(withSDK, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(withSDK, "lib", "librocprofiler-sdk.so"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	without := t.TempDir()
	// A wrapper script and an interpreter link neither HIP nor CUDA: rocm when the root has the SDK
	// (rocprofv3 profiles them alike); without it the error says how to ask for rocm.
	script := filepath.Join(fixtures, "job.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cudaApp := linkedApp(t, fixtures, "libcudart.so")
	for _, tc := range []struct {
		app, root, want, err string
	}{
		{hip, withSDK, "rocm", ""},
		{hip, without, "", "links libamdhip64.so (a HIP application) but the ROCm root " + without + " has no rocprofiler-sdk"},
		{simApp, withSDK, "sim", ""},
		{script, withSDK, "rocm", ""},
		{"sh", withSDK, "rocm", ""},
		{script, without, "", "the ROCm root " + without + " has no rocprofiler-sdk (lib/librocprofiler-sdk.so) and CUDA is not usable"},
		{script, without, "", "pass --backend rocm with --rocm-root naming the ROCm root"},
		{cudaApp, withSDK, "", "CUDA is not usable"},
	} {
		b, err := Choose(context.Background(), Choice{Name: Auto, ROCmRoot: tc.root}, tc.app)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Choose(auto, %s, root %s) = %v, want an error containing %q", tc.app, tc.root, err, tc.err)
		case tc.err == "" && (err != nil || b.Name() != tc.want):
			t.Errorf("Choose(auto, %s, root %s) = %v, %v; want %s", tc.app, tc.root, b, err, tc.want)
		}
	}
}

// auto's probe of CUDA lists the agents with the run's counters announced (Choice.Ahead), so that a first
// run's planning starts the CUDA helper once: the catalog of those counters comes from that same call.
func TestChooseAutoAsksTheAgentsWithTheRunsCounters(t *testing.T) {
	lib := t.TempDir()
	log := filepath.Join(lib, "calls.log")
	t.Setenv(helper.EnvLibDir, lib)
	t.Setenv(querycache.EnvCache, "off")
	reply := `{"version":1,"backend":"cuda","agents":[{"index":0,"id":1,"name":"NVIDIA H200","strings":{"chip":"GH100"}}],` +
		`"catalogs":[{"version":1,"agent":0,"chip":"GH100","metrics":[{"name":"sm__inst_executed.sum","description":"d","unit":"inst"}],` +
		`"missing":[],"passes":[{"metrics":["sm__inst_executed.sum"],"passes":1}]}]}`
	files := map[string]string{
		"libgorocprof_tool_cuda.so": "",
		"gorocprof-query-cuda":      "#!/bin/sh\necho \"$*\" >> '" + log + "'\necho '" + reply + "'\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(lib, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	groups, err := counters.ParseGroups([]string{"sm__inst_executed.sum"})
	if err != nil {
		t.Fatal(err)
	}
	ahead := counters.CommonScope(groups)
	ctx := context.Background()
	b, err := Choose(ctx, Choice{Name: Auto, ROCmRoot: t.TempDir(), Ahead: ahead}, "sh")
	if err != nil || b.Name() != "cuda" {
		t.Fatalf("Choose(auto) = %v, %v", b, err)
	}
	list, err := b.Agents(ctx, ahead)
	if err != nil || len(list) != 1 {
		t.Fatalf("Agents = %v, %v", list, err)
	}
	cat, err := b.Catalog(ctx, list[0], counters.ScopeOf(groups, 0))
	if err != nil || !cat.Has("sm__inst_executed.sum") {
		t.Fatalf("Catalog = %v, %v", cat, err)
	}
	if fits, err := cat.Fits([]counters.Base{{Name: "sm__inst_executed.sum"}}); !fits || err != nil {
		t.Errorf("Fits = %v, %v", fits, err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(data)), "agents --only sm__inst_executed.sum --passes sm__inst_executed.sum"; got != want {
		t.Errorf("the helper was asked\n%s\nwant only\n%s", got, want)
	}
}
