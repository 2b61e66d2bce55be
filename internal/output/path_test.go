package output

import (
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

func TestPathVarsFromEnv(t *testing.T) {
	tests := []struct {
		env                    map[string]string
		wantRank, wantSize, wj string
	}{
		{map[string]string{}, "", "", ""},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "4", "SLURM_PROCID": "9"}, "2", "4", ""},
		{map[string]string{"PMI_RANK": "1", "PMI_SIZE": "2"}, "1", "2", ""},
		{map[string]string{"SLURM_PROCID": "5", "SLURM_NTASKS": "16", "SLURM_JOB_ID": "77"}, "5", "16", "77"},
	}
	for _, tc := range tests {
		var v PathVars
		v.FromEnv(func(k string) string { return tc.env[k] })
		if v.Rank != tc.wantRank || v.Size != tc.wantSize || v.Job != tc.wj {
			t.Errorf("FromEnv(%v) = rank %q size %q job %q; want %q %q %q",
				tc.env, v.Rank, v.Size, v.Job, tc.wantRank, tc.wantSize, tc.wj)
		}
	}
}
