package helper

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// The test binary doubles as a fake query helper: with GOROCPROF_FAKE_HELPER set it answers its
// command line the way that variable says and exits, so the tests run a real child process.
const fakeEnv = "GOROCPROF_FAKE_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeHelper(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

func fakeHelper(mode string, args []string) int {
	call := strings.Join(args, " ")
	switch mode {
	case "fail":
		fmt.Fprintf(os.Stderr, "gorocprof-query: %s: no GPU found\n", call)
		return 1
	case "silent-fail":
		return 3
	case "garbage":
		fmt.Println("this is not json")
		return 0
	case "sleep":
		time.Sleep(10 * time.Second)
		return 0
	case "version2":
		fmt.Println(`{"version":2,"backend":"sim","agents":[],"agent":0,"chip":"GH100","passes":1}`)
		return 0
	case "dup":
		fmt.Println(`{"version":1,"backend":"sim","agents":[{"index":0,"name":"gfx90a"},{"index":0,"name":"gfx942"}]}`)
		return 0
	case "flood":
		fmt.Println(`{"version":1,"backend":"sim","agents":[` + strings.Repeat(" ", 4096) + `]}`)
		return 0
	case "trailing":
		fmt.Println(`{"version":1,"backend":"sim","agents":[]}{"version":1}`)
		return 0
	}
	switch {
	case call == "agents":
		fmt.Println(`{"version":1,"backend":"sim","agents":[` +
			`{"id":1,"index":0,"name":"gfx90a","product_name":"AMD Instinct MI210 (simulated)","vendor":"AMD","type":"GPU","props":{"cu_count":104,"simd_count":416},"strings":{"uuid":""},"future_field":true},` +
			`{"id":2,"index":1,"name":"gfx942","vendor":"AMD","type":"GPU","props":{"cu_count":304}}]}`)
	case call == "metrics --agent 0":
		fmt.Println(`{"version":1,"agent":0,"chip":"GH100","metrics":[{"name":"sm__inst_executed.sum","description":"warp instructions executed","unit":"inst"},{"name":"gpu__time_duration.sum","description":"duration","unit":"nsecond"}]}`)
	default:
		fmt.Fprintf(os.Stderr, "gorocprof-query: %s: unknown command\n", call)
		return 2
	}
	return 0
}

func helper(t *testing.T, mode string) string {
	t.Helper()
	t.Setenv(fakeEnv, mode)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestAgents(t *testing.T) {
	exe := helper(t, "ok")
	got, err := Agents(context.Background(), exe)
	if err != nil {
		t.Fatal(err)
	}
	want := []contract.Agent{
		{ID: 1, Index: 0, Name: "gfx90a", ProductName: "AMD Instinct MI210 (simulated)", Vendor: "AMD", Type: "GPU",
			Props: map[string]int64{"cu_count": 104, "simd_count": 416}, Strings: map[string]string{"uuid": ""}},
		{ID: 2, Index: 1, Name: "gfx942", Vendor: "AMD", Type: "GPU", Props: map[string]int64{"cu_count": 304}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Agents = %+v, want %+v", got, want)
	}
}

func TestAgentsErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		mode string
		call func(exe string) error
		want []string
	}{
		{"fail", func(exe string) error { _, err := Agents(ctx, exe); return err },
			[]string{" agents: exit status 1: gorocprof-query: agents: no GPU found"}},
		{"silent-fail", func(exe string) error { _, err := Agents(ctx, exe); return err },
			[]string{"exit status 3: no message on stderr"}},
		{"garbage", func(exe string) error { _, err := Agents(ctx, exe); return err },
			[]string{" agents: reading its reply: invalid character"}},
		{"version2", func(exe string) error { _, err := Agents(ctx, exe); return err },
			[]string{"contract version 2, gorocprof speaks version 1"}},
		{"dup", func(exe string) error { _, err := Agents(ctx, exe); return err },
			[]string{"two agents with index 0"}},
	}
	for _, tt := range tests {
		exe := helper(t, tt.mode)
		err := tt.call(exe)
		if err == nil {
			t.Errorf("mode %s: no error", tt.mode)
			continue
		}
		for _, w := range append(tt.want, exe) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("mode %s: error %q lacks %q", tt.mode, err, w)
			}
		}
	}
	if _, err := Agents(ctx, "/nonexistent/gorocprof-query-sim"); err == nil || !strings.Contains(err.Error(), "running /nonexistent/gorocprof-query-sim agents") {
		t.Errorf("missing helper: %v", err)
	}
}

func TestAgentsCancelled(t *testing.T) {
	exe := helper(t, "sleep")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Agents(ctx, exe)
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Errorf("Agents with an expired context: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("Agents did not stop the helper when the context expired")
	}
}

func TestQueryTrace(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want []string
	}{
		{"", nil},
		{"0", nil},
		{"1", []string{"agents", "metrics --agent 0"}},
	} {
		t.Run("env="+tc.env, func(t *testing.T) {
			exe := helper(t, "ok")
			t.Setenv(EnvTrace, tc.env)
			var buf strings.Builder
			old := traceOut
			traceOut = &buf
			defer func() { traceOut = old }()
			if _, err := Agents(context.Background(), exe); err != nil {
				t.Fatal(err)
			}
			var reply contract.MetricsReply
			if err := Ask(context.Background(), exe, &reply, "metrics", "--agent", "0"); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			if tc.want == nil {
				if buf.Len() != 0 {
					t.Fatalf("traced with %s=%q: %q", EnvTrace, tc.env, buf.String())
				}
				return
			}
			if len(lines) != len(tc.want) {
				t.Fatalf("trace = %q, want one line per call %q", buf.String(), tc.want)
			}
			for i, w := range tc.want {
				prefix := "gorocprof: query helper: " + w + ": "
				if !strings.HasPrefix(lines[i], prefix) || !strings.HasSuffix(lines[i], " ms") {
					t.Errorf("trace line %d = %q, want %q<n> ms", i, lines[i], prefix)
				}
			}
		})
	}
}
