package rocm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fakeRoot lays out a ROCm root with (sdk) or without a librocprofiler-sdk.so, and a library
// directory with the tool library and a query helper: a shell script answering as
// gorocprof-query-rocm does, from an SDK of version and kernel replay domain given, that fails
// unless LD_LIBRARY_PATH starts with the root's lib directory.
func fakeRoot(t *testing.T, sdk bool, version string, replay bool) Config {
	t.Helper()
	root, lib := t.TempDir(), t.TempDir()
	if sdk {
		if err := os.MkdirAll(filepath.Join(root, "lib"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, sdkLibrary), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kr := "false"
	if replay {
		kr = "true"
	}
	script := `#!/bin/sh
case "$LD_LIBRARY_PATH" in ` + root + `/lib*) ;; *) echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >&2; exit 9;; esac
case "$1" in
agents) echo '{"version":1,"backend":"rocm","sdk":{"version":"` + version + `","kernel_replay":` + kr + `},"agents":[{"id":1,"index":0,"name":"gfx90a","vendor":"AMD","type":"GPU","props":{"num_xcc":1}}]}';;
metrics) echo '{"version":1,"agent":0,"chip":"gfx90a","metrics":[{"name":"SQ_WAVES","description":"waves","block":"SQ","expression":"","derived":false,"dimensions":[]},{"name":"SQ_INSTS_VALU","description":"valu","block":"SQ"},{"name":"VALU_PER_WAVE","description":"ratio","expression":"SQ_INSTS_VALU/SQ_WAVES","derived":true}]}';;
passes) echo '{"version":1,"agent":0,"metrics":[],"passes":1}';;
*) exit 2;;
esac
`
	for name, body := range map[string]string{toolLibrary: "", queryHelper: script} {
		if err := os.WriteFile(filepath.Join(lib, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return Config{Root: root, LibDir: lib, SysfsRoot: filepath.Join("testdata", "kfd", "mi210")}
}

func TestToolEnvironment(t *testing.T) {
	for _, tc := range []struct {
		preload, libPath         string
		wantPreload, wantLibPath string
	}{
		{"", "", "SDK", "ROOT/lib"},
		{"/x/liba.so", "/x/lib", "/x/liba.so:SDK", "ROOT/lib:/x/lib"},
		{" ", "", "SDK", "ROOT/lib"},
	} {
		cfg := fakeRoot(t, true, "1.4.1", true)
		cfg.Preload, cfg.LibraryPath = tc.preload, tc.libPath
		b := New(cfg)
		tool, env, err := b.Tool()
		if err != nil {
			t.Fatal(err)
		}
		sdk := filepath.Join(cfg.Root, sdkLibrary)
		expand := strings.NewReplacer("SDK", sdk, "ROOT", cfg.Root).Replace
		want := []string{
			"ROCP_TOOL_LIBRARIES=" + tool,
			"LD_PRELOAD=" + expand(tc.wantPreload),
			"LD_LIBRARY_PATH=" + expand(tc.wantLibPath),
			"ROCPROFILER_LIBRARY_CTOR=1",
			"GOROCPROF_SIM_INJECTION_PATH=" + sdk,
		}
		if tool != filepath.Join(cfg.LibDir, toolLibrary) || !reflect.DeepEqual(env, want) {
			t.Errorf("preload %q, path %q: Tool = %s, %q; want %q", tc.preload, tc.libPath, tool, env, want)
		}
	}
}

// A relative --rocm-root (and library directory) still gives the app absolute paths: an app that
// changes directory before it starts HIP finds the SDK and the tool all the same.
func TestToolEnvironmentIsAbsolute(t *testing.T) {
	cfg := fakeRoot(t, true, "1.4.1", true)
	t.Chdir(filepath.Dir(cfg.Root))
	abs := cfg.Root
	cfg.Root = filepath.Base(cfg.Root)
	cfg.LibDir = filepath.Join("..", filepath.Base(filepath.Dir(cfg.LibDir)), filepath.Base(cfg.LibDir))
	tool, env, err := New(cfg).Tool()
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(tool) {
		t.Errorf("tool library %s is relative", tool)
	}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		for _, p := range strings.Split(value, ":") {
			if p != "1" && !filepath.IsAbs(p) {
				t.Errorf("%s: %s is relative (in %s)", name, p, value)
			}
		}
	}
	if want := "LD_LIBRARY_PATH=" + filepath.Join(abs, "lib"); !slices.Contains(env, want) {
		t.Errorf("env %q lacks %q", env, want)
	}
}

func TestToolRefuses(t *testing.T) {
	noSDK := fakeRoot(t, false, "", false)
	noTool := fakeRoot(t, true, "1.4.1", true)
	if err := os.Remove(filepath.Join(noTool.LibDir, toolLibrary)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{noSDK, "no rocprofiler-sdk under the ROCm root " + noSDK.Root + " (" + filepath.Join(noSDK.Root, sdkLibrary) + " is missing; --rocm-root names the root)"},
		{noTool, "tool file " + filepath.Join(noTool.LibDir, toolLibrary) + " is missing"},
	} {
		if _, _, err := New(tc.cfg).Tool(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Tool = %v, want an error containing %q", err, tc.want)
		}
	}
}

// The agents and catalogs come from the SDK's query helper when the root holds the SDK; whether
// kernel replay is possible follows the SDK's answer.
func TestAgentsFromSDK(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		version string
		replay  bool
		want    string
	}{
		{"1.4.1", true, ""},
		{"1.0.0", false, "no kernel replay: rocprofiler-sdk 1.0.0 under ROOT has no kernel replay domain (ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY); rocprofiler-sdk 1.4.1 (ROCm 10.1) adds it"},
	} {
		cfg := fakeRoot(t, true, tc.version, tc.replay)
		var warnings strings.Builder
		cfg.Warnings = &warnings
		b := New(cfg)
		if err := b.KernelReplay(); err != nil {
			t.Errorf("KernelReplay before the agents are known = %v", err)
		}
		list, err := b.Agents(ctx, nil)
		if err != nil || len(list) != 1 || list[0].Name != "gfx90a" {
			t.Fatalf("Agents = %+v, %v", list, err)
		}
		err = b.KernelReplay()
		want := strings.ReplaceAll(tc.want, "ROOT", cfg.Root)
		if (want == "") != (err == nil) || (err != nil && (err.Error() != want || !errors.Is(err, ErrNoKernelReplay))) {
			t.Errorf("SDK %s: KernelReplay = %v, want %q", tc.version, err, want)
		}
		cat, err := b.Catalog(ctx, list[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := cat.Names(); !reflect.DeepEqual(got, []string{"SQ_INSTS_VALU", "SQ_WAVES", "VALU_PER_WAVE"}) {
			t.Errorf("catalog = %v, want the SDK's three counters", got)
		}
		if cat.Source != "rocprofiler-sdk" {
			t.Errorf("catalog source = %q", cat.Source)
		}
		if warnings.Len() != 0 {
			t.Errorf("warnings with the SDK present: %q", warnings.String())
		}
	}
}

// Without the SDK (or without gorocprof's query helper) the agents come from the KFD topology, and
// the backend says so.
func TestAgentsFallBackToKFD(t *testing.T) {
	noSDK := fakeRoot(t, false, "", false)
	noHelper := fakeRoot(t, true, "1.4.1", true)
	if err := os.Remove(filepath.Join(noHelper.LibDir, queryHelper)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{noSDK, "gorocprof: note: backend rocm: no rocprofiler-sdk under the ROCm root " + noSDK.Root},
		{noHelper, "gorocprof: note: backend rocm: gorocprof's gorocprof-query-rocm is not built (" + noHelper.LibDir + ")"},
	} {
		var warnings strings.Builder
		tc.cfg.Warnings = &warnings
		b := New(tc.cfg)
		list, err := b.Agents(context.Background(), nil)
		if err != nil || len(list) == 0 {
			t.Fatalf("Agents = %v, %v", list, err)
		}
		if !strings.HasPrefix(warnings.String(), tc.want) || !strings.Contains(warnings.String(), "agents from the KFD topology") {
			t.Errorf("warnings = %q, want %q... agents from the KFD topology", warnings.String(), tc.want)
		}
		cat, err := b.Catalog(context.Background(), list[0], nil)
		if err != nil || cat.Source == "rocprofiler-sdk" {
			t.Errorf("catalog without the SDK: %v, %v; want gorocprof's definitions", cat, err)
		}
		if err := b.KernelReplay(); err != nil {
			t.Errorf("KernelReplay without the SDK = %v (Tool refuses the run instead)", err)
		}
	}
}

func TestQueryErrors(t *testing.T) {
	cfg := fakeRoot(t, true, "", true)
	_, err := New(cfg).Agents(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), `the reply lacks the SDK's version`) {
		t.Errorf("Agents from a helper without the SDK's version: %v", err)
	}
}
