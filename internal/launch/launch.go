// Package launch starts the profiled application with the environment it is given, forwards the
// signals a user sends to gorocprof, and reports how the application ended.
package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Spec is one launch of the application.
type Spec struct {
	App    string   // path or name looked up in PATH
	Args   []string // the application's own arguments
	Env    []string // full environment of the child
	Dir    string   // working directory; empty means gorocprof's
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Marker is one NAME=VALUE of Env that only this launch's processes have (the run directory):
	// the processes the application leaves running, which gorocprof adopts, are told from its other
	// children by it. Empty: they are not waited for.
	Marker string
}

// Status is how the application ended.
type Status struct {
	ExitCode int            // the app's exit status, or 128+n when killed by signal n
	Signal   syscall.Signal // the signal that killed it; 0 if it exited
	PID      int
}

// Signaled reports whether a signal ended the application.
func (s Status) Signaled() bool { return s.Signal != 0 }

// SignalName is the name of the signal that ended the application ("SIGSEGV"), or "".
func (s Status) SignalName() string {
	if !s.Signaled() {
		return ""
	}
	return SignalName(s.Signal)
}

// String describes the ending the way a user reads it.
func (s Status) String() string {
	if s.Signaled() {
		return fmt.Sprintf("killed by signal %d (%s)", int(s.Signal), SignalName(s.Signal))
	}
	return fmt.Sprintf("exited with status %d", s.ExitCode)
}

// SignalName is the name of sig as users know it ("SIGINT").
func SignalName(sig syscall.Signal) string {
	if n, ok := signalNames[sig]; ok {
		return n
	}
	return sig.String()
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE", syscall.SIGHUP: "SIGHUP",
	syscall.SIGILL: "SIGILL", syscall.SIGINT: "SIGINT", syscall.SIGKILL: "SIGKILL", syscall.SIGPIPE: "SIGPIPE",
	syscall.SIGQUIT: "SIGQUIT", syscall.SIGSEGV: "SIGSEGV", syscall.SIGTERM: "SIGTERM", syscall.SIGTRAP: "SIGTRAP",
	syscall.SIGUSR1: "SIGUSR1", syscall.SIGUSR2: "SIGUSR2",
}

// ErrApp marks errors about the application itself (missing, not executable).
var ErrApp = errors.New("application")

// Resolve finds the application the way a shell would and checks it can be executed.
func Resolve(app string) (string, error) {
	if app == "" {
		return "", fmt.Errorf("%w: no application given after --", ErrApp)
	}
	path, err := exec.LookPath(app)
	if err != nil {
		var ee *exec.Error
		switch {
		case errors.As(err, &ee) && (errors.Is(ee.Err, exec.ErrNotFound) || errors.Is(ee.Err, os.ErrNotExist)):
			return "", fmt.Errorf("%w %q: not found (neither a file nor a command in PATH)", ErrApp, app)
		case errors.Is(err, syscall.EISDIR):
			return "", fmt.Errorf("%w %q: is a directory, not an executable", ErrApp, app)
		case errors.Is(err, os.ErrPermission), strings.Contains(err.Error(), "permission denied"):
			return "", fmt.Errorf("%w %q: not executable (check its permissions)", ErrApp, app)
		default:
			return "", fmt.Errorf("%w %q: %v", ErrApp, app, err)
		}
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%w %q: %v", ErrApp, app, err)
	}
	if info.IsDir() {
		return "", fmt.Errorf("%w %q: is a directory, not an executable", ErrApp, app)
	}
	if info.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%w %q: not executable (check its permissions)", ErrApp, app)
	}
	return path, nil
}

// EnvDescendantWait is how long, in seconds, gorocprof waits for the processes the application
// left running once it has ended (default 10) before it stops them.
const EnvDescendantWait = "GOROCPROF_DESCENDANT_WAIT"

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

func descendantWait() time.Duration {
	if v, err := strconv.ParseFloat(os.Getenv(EnvDescendantWait), 64); err == nil && v >= 0 && v <= 3600 {
		return time.Duration(v * float64(time.Second))
	}
	return 10 * time.Second
}

// forwarded are the signals a user sends to gorocprof that belong to the application.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}

// Run starts the application, forwards signals to it while it runs and waits for it. A non-zero exit
// or a signal is not an error: it is reported in Status. Errors mean the application could not be run.
func Run(ctx context.Context, spec Spec) (Status, error) {
	path, err := Resolve(spec.App)
	if err != nil {
		return Status{}, err
	}
	cmd := exec.Command(path, spec.Args...)
	cmd.Args[0] = spec.App
	cmd.Env = spec.Env
	cmd.Dir = spec.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = spec.Stdin, spec.Stdout, spec.Stderr

	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwarded...)
	defer signal.Stop(sigs)

	dieWithParent(cmd)
	if err := becomeSubreaper(); err != nil {
		fmt.Fprintf(orDiscard(spec.Stderr), "gorocprof: warning: %v: processes the application leaves running are not waited for\n", err)
	}
	wd := startWatchdog(orDiscard(spec.Stderr), spec.Marker)
	defer wd.stop()
	waited, err := startLocked(cmd)
	if err != nil {
		return Status{}, fmt.Errorf("starting %s: %w", spec.App, err)
	}
	done := make(chan struct{})
	var last atomic.Int32 // the last signal forwarded: the processes adopted after it get it too
	go func() {
		for {
			select {
			case s := <-sigs:
				last.Store(int32(s.(syscall.Signal)))
				// The application decides what the signal means; gorocprof keeps running so it can
				// turn every record written so far into output. Processes it left running (adopted
				// as gorocprof's children) get the signal too.
				_ = cmd.Process.Signal(s)
				forwardToDescendants(cmd.Process.Pid, spec.Marker, s.(syscall.Signal))
			case <-ctx.Done():
				_ = cmd.Process.Signal(syscall.SIGTERM)
				forwardToDescendants(cmd.Process.Pid, spec.Marker, syscall.SIGTERM)
				<-done
				return
			case <-done:
				return
			}
		}
	}()
	waitErr := <-waited
	close(done)
	// A wrapper (`sh -c "app; ..."`) that a forwarded signal ended leaves the app to gorocprof,
	// which sends it the signal its wrapper did not pass on.
	if s := syscall.Signal(last.Load()); s != 0 {
		forwardToDescendants(cmd.Process.Pid, spec.Marker, s)
	}
	waitDescendants(orDiscard(spec.Stderr), cmd.Process.Pid, spec.Marker, descendantWait(), sigs)

	st := Status{PID: cmd.Process.Pid}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case ok && ws.Signaled():
		st.Signal = ws.Signal()
		st.ExitCode = 128 + int(ws.Signal())
	case ok:
		st.ExitCode = ws.ExitStatus()
	default:
		st.ExitCode = cmd.ProcessState.ExitCode()
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return st, fmt.Errorf("waiting for %s: %w", spec.App, waitErr)
	}
	return st, nil
}

// startLocked starts cmd and waits for it on one goroutine locked to its OS thread, and returns
// the channel that receives Wait's result. Linux sends the parent-death signal (dieWithParent) when
// the thread that forked the child ends, not the process: an unlocked goroutine would leave that
// thread to the Go runtime, which ends a thread whenever a goroutine that locked it returns without
// unlocking, and the application would be killed while gorocprof runs on. Locked, the thread serves
// nothing else until the child is reaped.
func startLocked(cmd *exec.Cmd) (<-chan error, error) {
	started, waited := make(chan error, 1), make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		afterStart()
		waited <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return waited, nil
}

// afterStart runs on the launching goroutine between start and wait; a test parks it there, the way
// the scheduler may at any time, to show that its thread is not handed to anything else.
var afterStart = func() {}

// Environ is base without the variables named in drop, followed by add: the child's environment, the
// run's own variables replacing whatever the parent had under those names.
func Environ(base, drop, add []string) []string {
	env := make([]string, 0, len(base)+len(add))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(drop, k) {
			env = append(env, kv)
		}
	}
	return append(env, add...)
}
