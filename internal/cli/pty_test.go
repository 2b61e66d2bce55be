package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/gorocprof/gorocprof/internal/e2etest"
)

// ptyRun runs gorocprof (this test binary under that name, as testscript runs it) on a terminal of
// cols columns, with env added to the environment; during calls it while it runs, with what it has
// printed so far and the terminal to type into. It returns all it printed and how it exited.
func ptyRun(t *testing.T, cols uint16, env []string, during func(printed func() string, term io.Writer), args ...string) (string, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "gorocprof")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(os.Environ(), "COLUMNS="), env...)
	term, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: cols})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 4096)
		for {
			n, err := term.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	printed := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.ReplaceAll(out.String(), "\r", "\n")
	}
	if during != nil {
		during(printed, term)
	}
	err = cmd.Wait()
	select {
	case <-copied:
	case <-time.After(5 * time.Second):
	}
	return printed(), err
}

// waitFor waits until printed shows want, or fails after a minute.
func waitFor(t *testing.T, printed func() string, want string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(printed(), want) {
			return
		}
	}
	t.Fatalf("no %q in what gorocprof printed:\n%s", want, printed())
}

// TestProgressOnTerminal: on a terminal, a kernel replay run shows its progress (dispatches seen
// and passes replayed) while the application runs and while the output is written, and the summary
// is fitted to the terminal's width without $COLUMNS; --quiet shows no progress.
func TestProgressOnTerminal(t *testing.T) {
	args := kernelReplayArgs(t, "20000")
	out, err := ptyRun(t, 80, nil, func(printed func() string, _ io.Writer) {
		waitFor(t, printed, "kernel replay: ")
	}, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"dispatches seen", "passes replayed (2 per dispatch)", "writing the output: ", "GOROCPROF KERNEL SUMMARY"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q on the terminal:\n%s", want, out)
		}
	}
	// The terminal's own width, without $COLUMNS: the kernel name is cut (as far as it goes, the
	// counters' columns being wider than 80 already).
	if !strings.Contains(out, "| increment(unsigned in... |") || !strings.Contains(out, "characters for 80 columns") {
		t.Errorf("the summary was not fitted to the terminal's 80 columns:\n%s", out)
	}
	quiet, err := ptyRun(t, 80, nil, nil, append([]string{"--quiet"}, args...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, quiet)
	}
	if strings.Contains(quiet, "dispatches seen") || strings.Contains(quiet, "writing the output") {
		t.Errorf("progress under --quiet:\n%s", quiet)
	}
}

// TestCtrlC: a Ctrl-C while the application runs says what gorocprof does next (the output of
// what was measured is written) and that a second one stops that; the second one keeps the records
// and names the `gorocprof process` command that writes them.
func TestCtrlC(t *testing.T) {
	args := kernelReplayArgs(t, "1000000")
	out, err := ptyRun(t, 100, nil, func(printed func() string, term io.Writer) {
		waitFor(t, printed, "dispatches seen")
		time.Sleep(time.Second)
		_, _ = term.Write([]byte{3})
		waitFor(t, printed, "Ctrl-C again")
		waitFor(t, printed, "writing the output: ")
		_, _ = term.Write([]byte{3})
	}, args...)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("exit %v, want status 130", err)
	}
	for _, want := range []string{
		"gorocprof: SIGINT passed on to the application; once it has ended, gorocprof writes the output of what it measured " +
			"(Ctrl-C again while that is written stops it, keeping the records for `gorocprof process`)",
		"gorocprof: SIGINT: stopping the output; the records are kept",
		"(`gorocprof process /",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q on the terminal:\n%s", want, out)
		}
	}
	// The command it names writes the output from the kept records.
	i := strings.Index(out, "(`gorocprof process ")
	dir, _, _ := strings.Cut(out[i+len("(`gorocprof process "):], "`")
	defer os.RemoveAll(dir)
	if _, err := os.Stat(filepath.Join(dir, "records")); err != nil {
		t.Errorf("the records named are not there: %v", err)
	}
}

// TestMergeProgress: merge shows the bytes it has read of its inputs on a terminal.
func TestMergeProgress(t *testing.T) {
	root := e2etest.Require(t, "sim-many")
	dir := t.TempDir()
	run := exec.Command(filepath.Join(root, "bin", "gorocprof"), "--backend", "sim", "--quiet", "--pmc", "SQ_WAVES", "-f", "json",
		"-d", dir, "-o", "run", "--", filepath.Join(root, "bin", "sim-many"), "60000")
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err := ptyRun(t, 100, nil, func(printed func() string, _ io.Writer) {
		waitFor(t, printed, "merge: ")
	}, "merge", "-f", "csv", "-d", dir, "-o", "m", filepath.Join(dir, "run_results.json"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, " MB read (each results.json twice, with the kernel trace 3 times)") {
		t.Errorf("no merge progress on the terminal:\n%s", out)
	}
}

// kernelReplayArgs profiles sim-many's launches under kernel replay of two groups.
func kernelReplayArgs(t *testing.T, launches string) []string {
	root := e2etest.Require(t, "sim-many")
	return []string{"--backend", "sim", "--pmc", "SQ_WAVES", "SQ_INSTS_VALU", "--pmc", "SQ_WAVES", "SQ_INSTS_SALU",
		"--replay-mode", "kernel", "--kernel-replay-beta-enabled", "-d", "out", "--", filepath.Join(root, "bin", "sim-many"), launches}
}
