package merge

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gorocprof/gorocprof/internal/boundedread"
)

// The input file kinds, by name: what gorocprof (and rocprofv3) names its results.
const (
	jsonSuffix = "_results.json"
	dbSuffix   = "_results.db"
)

// inputFile is one file to merge.
type inputFile struct {
	path string
	db   bool
	prog *readProgress // the progress line's counts; nil for none
}

// findInputs turns the command line's inputs into files: a file as it is (results.json, or a
// rocpd database by its name or its first bytes), a directory searched below for *_results.json
// and *_results.db without following symbolic links. In a directory, a database whose prefix
// also has a results.json is the same run written twice, and is left out, and so are the pass_<N>/
// directories of an application replay beside its merged result. Files named in skip (the
// merge's own outputs) are never inputs. Every input must exist and give at least one file.
func findInputs(args []string, skip map[string]bool) ([]inputFile, error) {
	var out []inputFile
	given := map[string]string{}
	add := func(arg, path string, db bool) error {
		abs, err := filepath.Abs(path)
		if err != nil {
			return err
		}
		if prev, ok := given[abs]; ok {
			return fmt.Errorf("input %s: the same file as input %s", arg, prev)
		}
		given[abs] = arg
		out = append(out, inputFile{path: path, db: db})
		return nil
	}
	for _, arg := range args {
		fi, err := os.Stat(arg)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", arg, err)
		}
		if !fi.IsDir() {
			db, err := isDatabase(arg)
			if err != nil {
				return nil, fmt.Errorf("input %s: %w", arg, err)
			}
			if err := add(arg, arg, db); err != nil {
				return nil, err
			}
			continue
		}
		found, err := searchDir(arg, skip)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("input %s: a directory with no *%s or *%s below it", arg, jsonSuffix, dbSuffix)
		}
		for _, f := range found {
			if err := add(arg, f.path, f.db); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// searchDir lists the results below dir in lexical order.
func searchDir(dir string, skip map[string]bool) ([]inputFile, error) {
	var out []inputFile
	jsons := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("input %s: %w", dir, err)
		}
		if d.IsDir() && path != dir && passDir.MatchString(d.Name()) && holdsResults(filepath.Dir(path)) {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if abs, err := filepath.Abs(path); err == nil && skip[abs] {
			return nil
		}
		switch {
		case strings.HasSuffix(path, jsonSuffix):
			jsons[strings.TrimSuffix(path, jsonSuffix)] = true
			out = append(out, inputFile{path: path})
		case strings.HasSuffix(path, dbSuffix):
			out = append(out, inputFile{path: path, db: true})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(out, func(f inputFile) bool {
		return f.db && jsons[strings.TrimSuffix(f.path, dbSuffix)]
	}), nil
}

// passDir is the name of an application replay's pass output (pass_<N>/), whose passes the merged
// result beside it already holds.
var passDir = regexp.MustCompile(`^pass_[0-9]+$`)

// holdsResults says whether dir itself has a *_results.json or *_results.db.
func holdsResults(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, jsonSuffix) || strings.HasSuffix(n, dbSuffix) {
			return true
		}
	}
	return false
}

// isDatabase says whether a file named on the command line is an SQLite database: by its first
// bytes, so that a results.json renamed stays a results.json.
func isDatabase(path string) (bool, error) {
	f, err := boundedread.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := f.Read(head)
	return string(head[:n]) == "SQLite format 3\x00", nil
}
