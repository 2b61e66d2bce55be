package launch

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// The parent-death signal (dieWithParent) ends the application's first process when gorocprof is
// killed, SIGKILL included, but not what that process started: the app behind a wrapper shell, an
// orphan or a daemon would run on under init, unprofiled and unread. Nothing of gorocprof runs after
// a SIGKILL, so a watchdog does it: a second gorocprof process, started with the application, that
// holds the read end of a pipe whose write end only gorocprof has. gorocprof writes one byte when it
// no longer needs it; end of file without that byte means gorocprof died, and the watchdog kills
// every process that carries this launch's marker in its environment.

// envWatchdog holds the marker of the launch a watchdog guards; set only in a watchdog's environment.
const envWatchdog = "GOROCPROF_INTERNAL_WATCHDOG"

// standDown is the byte gorocprof writes when the launch it guarded has ended.
const standDown = 'x'

// IsWatchdog reports whether this process was started as a launch's watchdog.
func IsWatchdog() bool { return os.Getenv(envWatchdog) != "" }

// watchdogEnabled: a program whose main runs Watchdog when IsWatchdog says so (cmd/gorocprof) starts
// watchdogs; any other (a test binary, which would run its tests again) starts none.
var watchdogEnabled bool

// EnableWatchdog says that this program's main runs Watchdog when IsWatchdog, so that Run may start
// this program again as a launch's watchdog.
func EnableWatchdog() { watchdogEnabled = true }

// Watchdog is the whole life of a watchdog process: it waits on the pipe (file descriptor 3) and,
// if gorocprof died, ends the launch's processes. It returns the exit status.
func Watchdog() int {
	marker := os.Getenv(envWatchdog)
	// Only as gorocprof starts it: descriptor 3 a pipe and the marker a run directory. Anything else
	// (the variable set by hand) must not go on to kill whatever shares some NAME=VALUE.
	var st syscall.Stat_t
	name, _, _ := strings.Cut(marker, "=")
	if err := syscall.Fstat(3, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO || name != contract.EnvRunDir {
		fmt.Fprintf(os.Stderr, "gorocprof: error: %s is gorocprof's own variable, for the watchdog it starts beside an application: unset it\n", envWatchdog)
		return 2
	}
	// A terminal's Ctrl-C or a hangup reaches the whole process group; gorocprof, not the watchdog,
	// decides what they mean for the application.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	pipe := os.NewFile(3, "watchdog pipe")
	var b [1]byte
	n, _ := pipe.Read(b[:])
	if n == 1 && b[0] == standDown {
		return 0
	}
	killMarked(marker, 2*time.Second)
	return 0
}

// killMarked sends SIGKILL to every process whose environment holds marker, again until none is
// left or bound has passed (a process may fork while it is being killed).
func killMarked(marker string, bound time.Duration) {
	for end := time.Now().Add(bound); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		pids := marked(marker)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// marked lists the processes, but this one, whose environment holds marker (NAME=VALUE).
func marked(marker string) []int {
	self := os.Getpid()
	paths, _ := filepath.Glob("/proc/[0-9]*/environ")
	var out []int
	for _, p := range paths {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil || pid == self {
			continue
		}
		if hasMarker(pid, marker) {
			out = append(out, pid)
		}
	}
	return out
}

// watchdog is the running watchdog of one launch, as gorocprof holds it.
type watchdog struct {
	cmd  *exec.Cmd
	pipe *os.File
}

// startWatchdog starts the watchdog of a launch whose processes carry marker; nil (after a warning
// on stderr) where it cannot, since the run itself can go on without it.
func startWatchdog(stderr io.Writer, marker string) *watchdog {
	if marker == "" || !watchdogEnabled {
		return nil
	}
	w, err := spawnWatchdog(marker)
	if err == nil {
		return w
	}
	fmt.Fprintf(stderr, "gorocprof: warning: no watchdog for the application's processes (%v): if gorocprof is killed, what the application started may run on\n", err)
	return nil
}

func spawnWatchdog(marker string) (*watchdog, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// This very program, under the name it was started by (a multi-command binary dispatches on it).
	cmd := exec.Command("/proc/self/exe")
	cmd.Args[0] = os.Args[0]
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return kv == marker }), envWatchdog+"="+marker)
	cmd.ExtraFiles = []*os.File{r}
	// A process group of its own: a kill of gorocprof's group leaves it to end what left that group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, err
	}
	return &watchdog{cmd: cmd, pipe: w}, nil
}

// stop tells the watchdog that the launch has ended, and reaps it.
func (w *watchdog) stop() {
	if w == nil {
		return
	}
	_, _ = w.pipe.Write([]byte{standDown})
	w.pipe.Close()
	_ = w.cmd.Wait()
}
