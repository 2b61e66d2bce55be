package launch

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gorocprof/gorocprof/internal/boundedread"
)

// becomeSubreaper makes gorocprof the parent of every process the application leaves behind (an
// orphan, a double-forked daemon, the app behind a wrapper shell that ended): they are its
// children from then on, so that it can wait for them, forward signals to them and end them,
// instead of their living on under init while their records are read unfinished.
func becomeSubreaper() error {
	const prSetChildSubreaper = 36
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", errno)
	}
	return nil
}

// adopted lists gorocprof's child processes, but app, that descend from this launch: their
// environment holds marker (Spec.Marker), which gorocprof's other children (another launch's, a
// test's) lack.
func adopted(app int, marker string) []int {
	var out []int
	for _, pid := range children(app) {
		if hasMarker(pid, marker) {
			out = append(out, pid)
		}
	}
	return out
}

// hasMarker reports whether process pid's environment holds marker (one NAME=VALUE).
func hasMarker(pid int, marker string) bool {
	env, err := boundedread.File("/proc/"+strconv.Itoa(pid)+"/environ", 16<<20)
	return err == nil && slices.Contains(strings.Split(string(env), "\x00"), marker)
}

// children lists gorocprof's child processes that are still to be reaped, but skip.
func children(skip int) []int {
	self := os.Getpid()
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, p := range paths {
		data, err := os.ReadFile(p) // procfs: small, regular, never blocks
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 {
			continue
		}
		ppid, err := strconv.Atoi(fields[1])
		pid, perr := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err == nil && perr == nil && ppid == self && pid != skip {
			out = append(out, pid)
		}
	}
	return out
}

func commandName(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(data))
}

// reap collects the children that have ended; it returns those still running.
func reap(pids []int) []int {
	var running []int
	for _, pid := range pids {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if got == pid || err == syscall.ECHILD {
			continue
		}
		running = append(running, pid)
	}
	return running
}

// waitDescendants waits, once the application has ended, for the processes it left behind (now
// gorocprof's children) to end too, up to bound, forwarding signals to them meanwhile; those still
// running then get SIGTERM and, a second later, SIGKILL. Each of them is named on stderr: the
// waited ones' records are complete, the ended ones' end where they were stopped.
func waitDescendants(stderr io.Writer, app int, marker string, bound time.Duration, sigs <-chan os.Signal) {
	if marker == "" {
		return
	}
	left := reap(adopted(app, marker))
	if len(left) == 0 {
		return
	}
	names := make(map[int]string, len(left))
	for _, pid := range left {
		names[pid] = commandName(pid)
	}
	deadline := time.Now().Add(bound)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for len(left) > 0 && time.Now().Before(deadline) {
		select {
		case s := <-sigs:
			for _, pid := range left {
				_ = syscall.Kill(pid, s.(syscall.Signal))
			}
		case <-tick.C:
		}
		for _, pid := range adopted(app, marker) {
			if _, ok := names[pid]; !ok {
				names[pid] = commandName(pid)
				left = append(left, pid)
			}
		}
		left = reap(left)
	}
	if len(left) == 0 {
		fmt.Fprintf(stderr, "gorocprof: note: waited for %s the application left running (%s)\n",
			plural(len(names), "process", "processes"), pidNames(names, nil))
		return
	}
	stopped := slices.Clone(left)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		for _, pid := range left {
			_ = syscall.Kill(pid, sig)
		}
		for end := time.Now().Add(time.Second); len(left) > 0 && time.Now().Before(end); left = reap(left) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	fmt.Fprintf(stderr, "gorocprof: warning: %s the application left running had not ended %v after it (%s): stopped, so their records end there\n",
		plural(len(stopped), "process", "processes"), bound, pidNames(names, stopped))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// pidNames words a few processes (only, or all of names when nil) as "pid (name)", then how many more.
func pidNames(names map[int]string, only []int) string {
	pids := only
	if pids == nil {
		pids = slices.Collect(maps.Keys(names))
	}
	slices.Sort(pids)
	const shown = 5
	var words []string
	for _, pid := range pids[:min(len(pids), shown)] {
		words = append(words, fmt.Sprintf("%d (%s)", pid, names[pid]))
	}
	if len(pids) > shown {
		words = append(words, fmt.Sprintf("and %d more", len(pids)-shown))
	}
	return strings.Join(words, ", ")
}

// forwardToDescendants sends sig to the children gorocprof adopted, but the application itself.
func forwardToDescendants(app int, marker string, sig syscall.Signal) {
	if marker == "" {
		return
	}
	for _, pid := range adopted(app, marker) {
		_ = syscall.Kill(pid, sig)
	}
}
