package contract

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The places where an environment variable is read, by kind of source file: in Go, every string literal
// that is a GOROCPROF_ name outside tests (the programs name their variables in constants) and, in tests,
// the names a benchmark or test reads for its user (os.Getenv, os.LookupEnv, benchEnv); in the C++ tool,
// the sim runtime, the emulator and the test kit, the names given to getenv and its wrappers.
var (
	goProgramEnv = regexp.MustCompile(`"(GOROCPROF_[A-Z0-9_]+)"`)
	goTestEnv    = regexp.MustCompile(`\b(?:Getenv|LookupEnv|benchEnv)\((?:b, )?"(GOROCPROF_[A-Z0-9_]+)"`)
	cxxEnv       = regexp.MustCompile(`\b(?:getenv|getenv_nonempty|env)\("(GOROCPROF_[A-Z0-9_]+)"`)
)

// envDocs are the pages that document variables: environment.md the ones that are not flags, the
// contract's page those the front end and the tool exchange and the tool's own switches.
var envDocs = []string{"docs/environment.md", "docs/record-format.md"}

// TestEnvironmentDocumented: every GOROCPROF_ variable the Go code or the C++ reads is named in
// docs/environment.md or docs/record-format.md. The flags' own variables (GOROCPROF_<FLAG>) are read
// through the flag names, never as literals, and are documented by environment.md's rule.
func TestEnvironmentDocumented(t *testing.T) {
	root := filepath.Join("..", "..")
	sources := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "build", "lib", "bin", "out", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if envSourceKind(path) == "" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		sources[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var docs strings.Builder
	for _, d := range envDocs {
		data, err := os.ReadFile(filepath.Join(root, d))
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(data)
	}
	read := envRead(sources)
	if len(read) < 20 {
		t.Fatalf("found only %d variables read (%v): the scan lost its sources", len(read), read)
	}
	for _, p := range undocumentedEnv(read, docs.String()) {
		t.Errorf("%s is read (%s) but neither %s names it", p.name, p.where, strings.Join(envDocs, " nor "))
	}
}

// TestUndocumentedEnv shows the check has power. Its sources spell GOROCPROF_ as @, so that the scan of
// this file finds none of them.
func TestUndocumentedEnv(t *testing.T) {
	sources := map[string]string{
		"internal/x/x.go":      `const EnvA = "@A"`,
		"internal/x/x_test.go": `v := os.Getenv("@BENCH_B"); t.Setenv("@CHILD", "1")`,
		"tool/x/x.cpp":         `const char* v = std::getenv("@C"); o.d = unless_zero(env("@C_D"));`,
	}
	for p, src := range sources {
		sources[p] = strings.ReplaceAll(src, "@", "GOROCPROF_")
	}
	tests := []struct {
		name, docs string
		want       []string
	}{
		{"all named", "`GOROCPROF_A` `GOROCPROF_BENCH_B` `GOROCPROF_C` `GOROCPROF_C_D`", nil},
		{"none named", "", []string{"GOROCPROF_A", "GOROCPROF_BENCH_B", "GOROCPROF_C", "GOROCPROF_C_D"}},
		{"a longer name is not the name", "GOROCPROF_A GOROCPROF_BENCH_B GOROCPROF_C_D", []string{"GOROCPROF_C"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range undocumentedEnv(envRead(sources), tt.docs) {
				got = append(got, p.name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("undocumented %q, want %q", got, tt.want)
			}
		})
	}
}

// envSourceKind is how path's variables are found: "go", "gotest", "cxx", or "" for a file that is no source.
func envSourceKind(path string) string {
	switch filepath.Ext(path) {
	case ".go":
		if strings.HasSuffix(path, "_test.go") {
			return "gotest"
		}
		return "go"
	case ".cpp", ".hpp", ".h", ".cc", ".cu":
		return "cxx"
	}
	return ""
}

// envRead maps each variable read to the first file (in name order) that reads it.
func envRead(sources map[string]string) map[string]string {
	paths := make([]string, 0, len(sources))
	for p := range sources {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	read := map[string]string{}
	for _, p := range paths {
		re := map[string]*regexp.Regexp{"go": goProgramEnv, "gotest": goTestEnv, "cxx": cxxEnv}[envSourceKind(p)]
		for _, m := range re.FindAllStringSubmatch(sources[p], -1) {
			if _, ok := read[m[1]]; !ok {
				read[m[1]] = p
			}
		}
	}
	return read
}

type envProblem struct{ name, where string }

// undocumentedEnv lists, sorted, the variables of read that docs never names as a whole word.
func undocumentedEnv(read map[string]string, docs string) []envProblem {
	var out []envProblem
	for name, where := range read {
		if !regexp.MustCompile(`\b` + name + `\b`).MatchString(docs) {
			out = append(out, envProblem{name, where})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
