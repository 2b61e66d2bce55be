package output

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/gorocprof/gorocprof/internal/boundedread"
)

// Lock is an advisory lock (flock) a running gorocprof holds on a file: on an output prefix, from
// before launch until its files are in place, so that a second run with the same -d and -o is
// refused instead of mixing its files with the first's; on a run directory, while its records are
// being written, so that `gorocprof process` does not read them as a crashed run's. The kernel
// drops the lock when its holder ends however it ends (SIGKILL too), so a lock file left behind
// never blocks a later run.
type Lock struct {
	f       *os.File
	path    string
	created []string // directories made for the lock file, deepest first: removed when left empty
}

// ErrLocked says another running gorocprof holds the lock.
var ErrLocked = errors.New("in use by a running gorocprof")

// LockFile takes the lock of path, creating the file; an error wrapping ErrLocked names the holder's
// process id when another gorocprof holds it.
func LockFile(path string) (*Lock, error) {
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			holder := lockHolder(f)
			_ = f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("%w%s", ErrLocked, holder)
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		// The holder before us may have removed the file between our open and our lock: then the
		// lock is on a name nobody else finds, and the file at path is taken afresh.
		if same(f, path) {
			_ = f.Truncate(0)
			_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
			return &Lock{f: f, path: path}, nil
		}
		_ = f.Close()
	}
	return nil, fmt.Errorf("lock %s: the file keeps being replaced", path)
}

func same(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Lstat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// lockHolder is " (gorocprof process N)" from the lock file, or "" when it holds no process id.
func lockHolder(f *os.File) string {
	data, err := boundedread.Reader(f, 32)
	if err != nil {
		return ""
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return ""
	}
	return fmt.Sprintf(" (gorocprof process %d)", pid)
}

// Release removes the lock file and drops the lock; a nil Lock releases nothing.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	if same(l.f, l.path) {
		_ = os.Remove(l.path)
	}
	_ = l.f.Close()
	l.f = nil
	for _, d := range l.created {
		_ = os.Remove(d) // only an empty one goes: the run wrote nothing there
	}
}

// PrefixLockName is the lock file of the output prefix file in its directory: hidden, next to the
// files it guards.
func PrefixLockName(dir, file string) string {
	d, base := filepath.Split(filepath.Join(dir, file))
	return filepath.Join(d, "."+base+".gorocprof-lock")
}

// LockPrefix takes the lock of the output prefix file (expanded) in dir before anything runs,
// creating the directories up to it. A prefix another running gorocprof holds is refused with a
// message that says so.
func LockPrefix(dir, file string) (*Lock, error) {
	path := PrefixLockName(dir, file)
	var created []string
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		created = append(created, d)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("output prefix %s: %w", filepath.Join(dir, file), err)
	}
	l, err := LockFile(path)
	if errors.Is(err, ErrLocked) {
		err = fmt.Errorf("output prefix %s is %w: wait for it to end, or give this run another -o or -d",
			filepath.Join(dir, file), err)
	}
	if err != nil {
		for _, d := range created {
			_ = os.Remove(d)
		}
		return nil, err
	}
	l.created = created
	return l, nil
}

// FixedPrefix is -d and -o expanded as every process of the run will expand them, and whether they
// are the same for every process (no %pid%, %ppid% or %nid% without a rank): only such a prefix can
// be taken by two runs at once, and only it is locked before launch.
func FixedPrefix(dirPattern, filePattern string, sample PathVars) (dir, file string, fixed bool) {
	other := sample
	other.PID, other.PPID = sample.PID-1, sample.PPID-1
	d1, err1 := ExpandPath(dirPattern, sample)
	f1, err2 := ExpandPath(filePattern, sample)
	d2, err3 := ExpandPath(dirPattern, other)
	f2, err4 := ExpandPath(filePattern, other)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return "", "", false
	}
	return d1, f1, d1 == d2 && f1 == f2
}
