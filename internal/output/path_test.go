package output

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestExpandPath(t *testing.T) {
	env := map[string]string{"USER": "ada", "EMPTY": ""}
	base := PathVars{
		Hostname: "node7", PID: 4242, PPID: 4200, CWD: "/work/run",
		Launch: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC),
		Args:   []string{"/usr/bin/app", "-n", "3", "in file"},
		Getenv: func(k string) string { return env[k] },
	}
	mpi := base
	mpi.Rank, mpi.Size, mpi.Job = "3", "8", "991"
	// Values a record header or the environment brings stay one file name.
	evil := base
	evil.Hostname, evil.Rank, evil.Args = "../../x", "..", []string{"/", ".."}
	dots := base
	dots.Hostname, dots.Job = "..", "a/b"
	tests := []struct {
		pattern string
		vars    PathVars
		want    string
	}{
		{"%hostname%/%pid%", base, "node7/4242"},
		{"%h/%p", base, "node7/4242"},
		{"%h%p", base, "node74242"},
		{"%hostname%%pid%_%ppid%", base, "node74242_4200"},
		{"%rank%-%size%-%job%-%nid%", base, "0-1-0-4242"},
		{"%r-%s-%j-%nid%", mpi, "3-8-991-3"},
		{"%cwd%/out", base, "/work/run/out"},
		{"%launch_date%_%launch_time%", base, "2026-03-04_05.06.07"},
		{"%argv%", base, "_usr_bin_app_-n_3_in_file"},
		{"%argt%", base, "app_-n_3_in_file"},
		{"%args%", base, "-n_3_in_file"},
		{"%tag%", base, "app"},
		{"u_%env{USER}%_$ENV{USER}_$env{USER}", base, "u_ada_ada_ada"},
		{"x%env{NOPE}%y%env{EMPTY}%z", base, "xyz"},
		{"%unknown%/%pid%", base, "%unknown%/4242"},
		{"100%", base, "100%"},
		{"%", base, "%"},
		{"%x", base, "%x"},
		{"$HOME/%p", base, "$HOME/4242"},
		{"", base, ""},
		{"%hostname%/%pid%", evil, ".._.._x/4242"},
		{"%h/%rank%/%args%/%tag%", evil, ".._.._x/__/__/_"},
		{"%hostname%/%job%", dots, "__/a_b"},
		{"%cwd%/x", evil, "/work/run/x"},
	}
	for _, tc := range tests {
		got, err := ExpandPath(tc.pattern, tc.vars)
		if err != nil {
			t.Errorf("ExpandPath(%q): %v", tc.pattern, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ExpandPath(%q) = %q, want %q", tc.pattern, got, tc.want)
		}
	}
}

func TestExpandPathErrors(t *testing.T) {
	for _, pattern := range []string{"a/%env{USER", "a/%env{USER}", "$ENV{USER"} {
		_, err := ExpandPath(pattern, PathVars{Getenv: func(string) string { return "" }})
		if err == nil || !strings.Contains(err.Error(), pattern) {
			t.Errorf("ExpandPath(%q) error = %v, want one naming the pattern", pattern, err)
		}
	}
}

func TestCheckLocation(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(root, "ro")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 256)
	tests := []struct {
		name, dir, file string
		nonRoot         bool // root may write in a 0555 directory
		want            string
	}{
		{"existing directory", root, "out", false, ""},
		{"directories to create", filepath.Join(root, "a", "b"), "host/123", false, ""},
		{"dir is a file", file, "out", false, "exists and is not a directory"},
		{"below a file", filepath.Join(file, "sub"), "out", false, file + " exists and is not a directory, so"},
		{"file part below a file", root, "file/out", false, "exists and is not a directory"},
		{"read-only directory", filepath.Join(readOnly, "sub"), "out", true, "cannot create files in " + readOnly},
		{"proc, even for root", "/proc/gorocprof-out", "out", false, "cannot create files in /proc"},
		{"empty file name", root, "", false, "empty"},
		{"file name ends with a slash", root, "sub/", false, "names a directory"},
		{"file name is a dot", root, "sub/.", false, "names a directory"},
		{"name too long", root, long, false, "more than the 255"},
		{"prefix plus suffix too long", root, strings.Repeat("x", 240), false, "more than the 255"},
		{"directory name too long", filepath.Join(root, long), "out", false, "more than the 255"},
		{"path too long", filepath.Join(root, strings.Repeat(strings.Repeat("y", 200)+"/", 21)), "out", false, "more than the 4095"},
		{"-o above -d", root, "../x", false, `the file name "../x" leaves the output directory`},
		{"-o climbing out of -d", root, "a/../../x", false, "leaves the output directory"},
		{"absolute -o", root, "/etc/x", false, `the file name "/etc/x" is an absolute path`},
		{"-o up and down again", root, "a/../x", false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.nonRoot && os.Geteuid() == 0 {
				t.Skip("root writes in a read-only directory; run as another user to check")
			}
			err := CheckLocation(tc.dir, tc.file, true)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("CheckLocation(%q, %q) = %v, want nil", tc.dir, tc.file, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("CheckLocation(%q, %q) = %v, want an error containing %q", tc.dir, tc.file, err, tc.want)
			}
		})
	}
	// Nothing was created: no directory, no probe left behind.
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "file ro" {
		t.Errorf("after the checks %s holds %v, want only file and ro", root, names)
	}
}

func TestCheckFile(t *testing.T) {
	root := t.TempDir()
	existing := filepath.Join(root, "old.json")
	if err := os.WriteFile(existing, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, want string
	}{
		{filepath.Join(root, "new.json"), ""},
		{existing, ""},
		{filepath.Join(root, "missing", "x.json"), "directory " + filepath.Join(root, "missing") + " does not exist"},
		{filepath.Join(existing, "x.json"), "is not a directory"},
		{root, "is a directory"},
		{filepath.Join(root, strings.Repeat("z", 300)), "longer than the 255"},
		{"/proc/gorocprof-compare.json", "cannot create files in /proc"},
	}
	for _, tc := range tests {
		err := CheckFile(tc.path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckFile(%q) = %v, want nil", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("CheckFile(%q) = %v, want an error containing %q", tc.path, err, tc.want)
		}
	}
	if data, _ := os.ReadFile(existing); string(data) != "keep" {
		t.Errorf("CheckFile changed %s: %q", existing, data)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 1 {
		t.Errorf("CheckFile left files behind in %s: %v", root, entries)
	}
}

func TestSampleVarsAreTheWidest(t *testing.T) {
	v := SampleVars("./app", []string{"-n", "3"}, func(k string) string { return map[string]string{"MV2_COMM_WORLD_RANK": "12"}[k] }, RankVariables{})
	got, err := ExpandPath("%p_%ppid%_%rank%_%argt%", v)
	if err != nil {
		t.Fatal(err)
	}
	if want := "4194304_4194304_12_app_-n_3"; got != want {
		t.Errorf("expanded with the sample values: %q, want %q", got, want)
	}
}

func TestAltered(t *testing.T) {
	v := PathVars{Hostname: "../../x", Rank: "3", Size: "..", Job: "j/1"}
	want := []Altered{{"hostname", "../../x", ".._.._x"}, {"size", "..", "__"}, {"job", "j/1", "j_1"}}
	if got := v.Altered(); !slices.Equal(got, want) {
		t.Errorf("Altered() = %v, want %v", got, want)
	}
	if got := (PathVars{Hostname: "node7", Rank: "3"}).Altered(); got != nil {
		t.Errorf("plain values: Altered() = %v, want none", got)
	}
}
