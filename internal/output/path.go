package output

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// FromEnv fills Rank, Size and Job from the variables MPI launchers and SLURM set, first found wins:
// Open MPI, then PMI (MPICH, Intel MPI), then SLURM.
func (v *PathVars) FromEnv(getenv func(string) string) {
	first := func(names ...string) string {
		for _, n := range names {
			if s := getenv(n); s != "" {
				return s
			}
		}
		return ""
	}
	v.Rank = first("OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID")
	v.Size = first("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS")
	v.Job = first("SLURM_JOB_ID")
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
// Command-line parts are joined with '_' and their '/' and white space become '_', so they never
// add directories. A %word% that is none of these is kept as written, so a literal '%' in a path
// survives. An %env{ or $ENV{ without its closing brace is an error.
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
