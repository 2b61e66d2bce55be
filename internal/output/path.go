package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// PathVars holds the values of the output path placeholders for one profiled process.
type PathVars struct {
	Hostname string
	PID      int64
	PPID     int64
	Rank     string // "" when the process is not part of an MPI or SLURM job (expands to 0)
	Size     string // "" when unknown (expands to 1)
	Job      string // "" when unknown (expands to 0)
	CWD      string
	Launch   time.Time
	Args     []string            // the profiled command line, program first
	Getenv   func(string) string // nil means os.Getenv
}

// ExpandPath replaces rocprofv3's output path placeholders in pattern:
//
//	%hostname% %h   host name            %pid% %p   process id     %ppid%   parent process id
//	%rank% %r       MPI/SLURM rank or 0  %size% %s  job size or 1  %job% %j SLURM job id or 0
//	%nid%           rank if known, else the process id             %cwd%    working directory
//	%launch_date%   launch date, 2006-01-02                        %launch_time% launch time, 15.04.05
//	%argv%          whole command line   %argt% the same with the program's base name
//	%args%          arguments after the program                    %tag%    program base name
//	%env{NAME}% and $ENV{NAME} (or $env{NAME}): the environment variable, empty when unset.
//
// Command-line parts are joined with '_' and their '/' and white space become '_', and every value
// but %cwd% and the environment's is made one file name ('/' becomes '_', and "." or ".." all
// '_'), so that a value the records bring (a hostname of "../../x") never adds a directory nor
// leaves one; Altered says which values were changed. A %word% that is none of these is kept as
// written, so a literal '%' in a path survives. An %env{ or $ENV{ without its closing brace is an
// error.
func ExpandPath(pattern string, v PathVars) (string, error) {
	getenv := v.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var b strings.Builder
	for i := 0; i < len(pattern); {
		rest := pattern[i:]
		switch {
		case strings.HasPrefix(rest, "%env{"):
			name, n, err := envName(rest, len("%env{"), "}%")
			if err != nil {
				return "", fmt.Errorf("output path %q: %w", pattern, err)
			}
			b.WriteString(getenv(name))
			i += n
			continue
		case strings.HasPrefix(rest, "$ENV{"), strings.HasPrefix(rest, "$env{"):
			name, n, err := envName(rest, len("$ENV{"), "}")
			if err != nil {
				return "", fmt.Errorf("output path %q: %w", pattern, err)
			}
			b.WriteString(getenv(name))
			i += n
			continue
		case rest[0] == '%':
			if end := strings.IndexByte(rest[1:], '%'); end >= 0 {
				if val, ok := v.long(rest[1 : 1+end]); ok {
					b.WriteString(val)
					i += end + 2
					continue
				}
			}
			if len(rest) > 1 {
				if val, ok := v.short(rest[1]); ok {
					b.WriteString(val)
					i += 2
					continue
				}
			}
		}
		b.WriteByte(pattern[i])
		i++
	}
	return b.String(), nil
}

// envName returns the variable name after prefixLen and the length of the whole placeholder.
func envName(s string, prefixLen int, closing string) (string, int, error) {
	end := strings.Index(s[prefixLen:], closing)
	if end < 0 {
		return "", 0, fmt.Errorf("%s has no closing %q", s[:prefixLen], closing)
	}
	return s[prefixLen : prefixLen+end], prefixLen + end + len(closing), nil
}

func (v PathVars) long(word string) (string, bool) {
	val, ok := v.value(word)
	if ok && word != "cwd" {
		val = oneName(val)
	}
	return val, ok
}

func (v PathVars) value(word string) (string, bool) {
	switch word {
	case "hostname":
		return v.Hostname, true
	case "pid":
		return strconv.FormatInt(v.PID, 10), true
	case "ppid":
		return strconv.FormatInt(v.PPID, 10), true
	case "rank":
		return orDefault(v.Rank, "0"), true
	case "size":
		return orDefault(v.Size, "1"), true
	case "job":
		return orDefault(v.Job, "0"), true
	case "nid":
		return orDefault(v.Rank, strconv.FormatInt(v.PID, 10)), true
	case "cwd":
		return v.CWD, true
	case "launch_date":
		return v.Launch.Format("2006-01-02"), true
	case "launch_time":
		return v.Launch.Format("15.04.05"), true
	case "argv":
		return joinArgs(v.Args), true
	case "argt":
		if len(v.Args) == 0 {
			return "", true
		}
		return joinArgs(append([]string{filepath.Base(v.Args[0])}, v.Args[1:]...)), true
	case "args":
		if len(v.Args) == 0 {
			return "", true
		}
		return joinArgs(v.Args[1:]), true
	case "tag":
		if len(v.Args) == 0 {
			return "", true
		}
		return joinArgs([]string{filepath.Base(v.Args[0])}), true
	}
	return "", false
}

func (v PathVars) short(c byte) (string, bool) {
	words := map[byte]string{'h': "hostname", 'p': "pid", 'r': "rank", 's': "size", 'j': "job"}
	if w, ok := words[c]; ok {
		return v.long(w)
	}
	return "", false
}

// oneName makes s usable as one file name: no '/' (nor NUL), and not "." or "..".
func oneName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == 0 {
			return '_'
		}
		return r
	}, s)
	if s == "." || s == ".." {
		return strings.Repeat("_", len(s))
	}
	return s
}

// Altered is a placeholder value that ExpandPath changed to keep it one file name.
type Altered struct {
	Placeholder string // "hostname"
	Value       string // "../../x"
	Written     string // ".._.._x"
}

// Altered lists the values of the placeholders naming the process's host and job that ExpandPath
// changes to keep them one file name.
func (v PathVars) Altered() []Altered {
	var out []Altered
	for _, f := range []struct{ name, val string }{{"hostname", v.Hostname}, {"rank", v.Rank}, {"size", v.Size}, {"job", v.Job}} {
		if safe := oneName(f.val); safe != f.val {
			out = append(out, Altered{f.name, f.val, safe})
		}
	}
	return out
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func joinArgs(args []string) string {
	s := strings.Join(args, "_")
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '\t' || r == '\n' {
			return '_'
		}
		return r
	}, s)
}

// widestPID is the largest process id Linux hands out (PID_MAX_LIMIT on 64-bit systems): expanded
// with it, %pid% and %ppid% are as long as they can ever be.
const widestPID = 4194304

// SampleVars are placeholder values as a process of app would see them, for checking an output
// location before anything runs: this host, the widest process ids, the rank variables of this
// environment (which the application inherits; custom names them as FromEnv has it), now, and the
// command line.
func SampleVars(app string, args []string, getenv func(string) string, custom RankVariables) PathVars {
	host, _ := os.Hostname()
	cwd, _ := os.Getwd()
	v := PathVars{Hostname: host, PID: widestPID, PPID: widestPID, CWD: cwd, Launch: time.Now(),
		Args: append([]string{app}, args...), Getenv: getenv}
	v.FromEnv(getenv, custom)
	return v
}

// outputSuffixes are the names Write appends to the file prefix; the longest decides whether a
// prefix fits the file system.
var outputSuffixes = []string{"_results.json", "_agent_info.csv", "_counter_collection.csv", "_kernel_trace.csv"}

// pathMax is Linux's PATH_MAX: a longer path cannot be opened.
const pathMax = 4096

// CheckLocation reports, before anything runs, why the files of prefix file (already expanded) in
// directory dir could not be written: a file name that is empty, leaves dir (absolute, or with a
// ".." out of it) or is longer than the file system allows, a path component that exists and is
// no directory, a directory that Write would refuse (a symbolic link below dir, a directory
// another user could change: see ownerError), or a nearest existing directory that this user
// cannot write in. probe=false skips that last check, which creates and removes a file; nothing
// else is created.
func CheckLocation(dir, file string, probe bool) error {
	base := filepath.Base(file)
	switch {
	case file == "":
		return errors.New("the file name is empty")
	case strings.HasSuffix(file, "/") || base == "." || base == "..":
		return fmt.Errorf("the file name %q names a directory, not a file", file)
	case filepath.IsAbs(file):
		return fmt.Errorf("the file name %q is an absolute path: -o names files below the output directory, which -d chooses", file)
	case !filepath.IsLocal(file):
		return fmt.Errorf("the file name %q leaves the output directory: -o names files below it, which -d chooses", file)
	}
	target := filepath.Join(dir, filepath.Dir(file))
	existing, missing, err := nearestDir(target)
	if err != nil {
		return err
	}
	if err := checkOwners(dir, filepath.Dir(file), os.Geteuid()); err != nil {
		return err
	}
	longest := base + longestSuffix()
	abs, err := filepath.Abs(filepath.Join(target, longest))
	if err == nil && len(abs) >= pathMax {
		return fmt.Errorf("the path %s is %d bytes long, more than the %d the system allows", abs, len(abs), pathMax-1)
	}
	limit := nameMax(existing)
	for _, name := range append(missing, longest) {
		if len(name) > limit {
			return fmt.Errorf("the name %q is %d bytes long, more than the %d the file system of %s allows", name, len(name), limit, existing)
		}
	}
	if probe {
		return probeWritable(existing)
	}
	return nil
}

// CheckFile reports, before anything runs, why the file at path could not be written: its
// directory is missing or no directory, it is a directory, or it cannot be opened for writing.
// It creates nothing but a probe file, removed at once, and changes no existing file.
func CheckFile(path string) error {
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("directory %s does not exist", dir)
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	if err := ownerError(dir, info, os.Geteuid()); err != nil {
		return err
	}
	if len(filepath.Base(path)) > nameMax(dir) {
		return fmt.Errorf("the name %q is longer than the %d bytes the file system of %s allows", filepath.Base(path), nameMax(dir), dir)
	}
	if info, err := os.Stat(path); err == nil {
		if info.IsDir() {
			return fmt.Errorf("%s is a directory", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return f.Close()
	}
	return probeWritable(dir)
}

func longestSuffix() string {
	longest := ""
	for _, s := range outputSuffixes {
		if len(s) > len(longest) {
			longest = s
		}
	}
	return longest
}

// nearestDir walks up from path to the nearest directory that exists and returns it with the
// names below it that would have to be created. A component that exists and is no directory is
// an error.
func nearestDir(path string) (existing string, missing []string, err error) {
	p := filepath.Clean(path)
	for {
		info, err := os.Stat(p)
		switch {
		case err == nil && info.IsDir():
			slices.Reverse(missing)
			return p, missing, nil
		case err == nil:
			if p == filepath.Clean(path) {
				return "", nil, fmt.Errorf("%s exists and is not a directory", p)
			}
			return "", nil, fmt.Errorf("%s exists and is not a directory, so %s cannot be created", p, path)
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ENAMETOOLONG):
			// Not there (a name too long cannot be there either): its parent decides.
		default:
			return "", nil, err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", nil, fmt.Errorf("no directory of %s exists", path)
		}
		missing = append(missing, filepath.Base(p))
		p = parent
	}
}

// probeWritable creates and removes a file in dir: the one test of writability that holds for
// every user (root included: a read-only file system refuses root too) and every file system.
func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".gorocprof-probe-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot create files in %s: %w", dir, err)
	}
	name := f.Name()
	_ = f.Close()
	return os.Remove(name)
}

// nameMax is the longest file name the file system holding dir accepts (255 where it cannot be
// asked).
func nameMax(dir string) int {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err == nil && st.Namelen > 0 {
		return int(st.Namelen)
	}
	return 255
}
