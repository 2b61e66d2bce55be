package backend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend/helper"
	"github.com/gorocprof/gorocprof/internal/backend/rocm"
)

func TestChoose(t *testing.T) {
	lib := t.TempDir()
	t.Setenv(helper.EnvLibDir, lib)
	t.Setenv(rocm.EnvSysfsRoot, t.TempDir())
	ctx := context.Background()
	for _, tc := range []struct{ name, app, want string }{
		{"opencl", "", `backend: unknown backend "opencl" (expected one of auto, sim, cuda, rocm)`},
		{"sim", "", "backend sim: tool file " + filepath.Join(lib, "libgorocprof_tool_sim.so") + " is missing"},
		{"cuda", "sh", "backend cuda: tool file " + filepath.Join(lib, "libgorocprof_tool_cuda.so") + " is missing"},
		{"rocm", "sh", "backend rocm: profiling AMD GPUs needs the rocm tool library"},
		{"auto", "sh", "backend auto: no usable backend for sh (CUDA: backend cuda: tool file"},
	} {
		b, err := Choose(ctx, tc.name, tc.app)
		if !errors.Is(err, ErrBackend) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Choose(%q, %q) = %v, %v; want %q", tc.name, tc.app, b, err, tc.want)
		}
	}
	// rocm plans without a tool library; auto without an application falls back to the sim.
	if b, err := Choose(ctx, "rocm", ""); err != nil || b.Name() != "rocm" {
		t.Errorf("Choose(rocm) = %v, %v", b, err)
	}
	for _, f := range []string{"libgorocprof_tool_sim.so", "gorocprof-query-sim"} {
		if err := os.WriteFile(filepath.Join(lib, f), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"auto", "", "sim"} {
		if b, err := Choose(ctx, name, ""); err != nil || b.Name() != "sim" {
			t.Errorf("Choose(%q) with the sim's files = %v, %v", name, b, err)
		}
	}
}
