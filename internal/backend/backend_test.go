package backend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend/cuda/querycache"
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
		b, err := Choose(context.Background(), Auto, tc.app)
		if err != nil || b.Name() != tc.want {
			t.Errorf("agents %s, app %q: Choose(auto) = %v, %v; want %s", tc.agents, tc.app, b, err, tc.want)
		}
	}
}
