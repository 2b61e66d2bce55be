package sim

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLinksRuntime(t *testing.T) {
	if LinksRuntime("/bin/sh") {
		t.Error("/bin/sh does not link the sim runtime")
	}
	if LinksRuntime(filepath.Join(t.TempDir(), "nothing")) {
		t.Error("a missing file links nothing")
	}
}

func TestNewAndTool(t *testing.T) {
	dir := t.TempDir()
	if _, err := New(dir); err == nil || !strings.Contains(err.Error(), "libgorocprof_tool_sim.so is missing") {
		t.Errorf("missing tool library: %v", err)
	}
	for _, f := range []string{toolLibrary, queryHelper} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	lib, env, err := b.Tool()
	want := filepath.Join(dir, toolLibrary)
	if err != nil || lib != want || !slices.Equal(env, []string{"GOROCPROF_SIM_INJECTION_PATH=" + want}) {
		t.Errorf("Tool() = %q, %q, %v", lib, env, err)
	}
}

// An app that wrote no record either does not link the runtime or never called it.
func TestNoRecords(t *testing.T) {
	b := &Backend{}
	if got := b.NoRecords("sh"); !strings.HasPrefix(got, "it does not link libgorocprof_sim.so") {
		t.Errorf("NoRecords(sh) = %q", got)
	}
	app, err := filepath.Abs("../../../bin/sim-demo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(app); err != nil {
		t.Skip("bin/sim-demo is not built")
	}
	if got := b.NoRecords(app); got != "it made no call to the simulated agents' runtime" {
		t.Errorf("NoRecords(sim-demo) = %q", got)
	}
}
