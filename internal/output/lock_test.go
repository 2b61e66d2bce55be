package output

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A prefix one gorocprof holds is refused to another (flock is per open file, so two locks in one
// process conflict as two processes' do), with the holder named; released, it is free again, and
// the directories made for the lock file go when nothing else was put there.
func TestPrefixLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	first, err := LockPrefix(dir, "p")
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockPrefix(dir, "p")
	want := fmt.Sprintf("output prefix %s is in use by a running gorocprof (gorocprof process %d)", filepath.Join(dir, "p"), os.Getpid())
	if !errors.Is(err, ErrLocked) || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("second lock: %v, want %q", err, want)
	}
	other, err := LockPrefix(dir, "q")
	if err != nil {
		t.Fatalf("another prefix in the same directory: %v", err)
	}
	other.Release()
	first.Release()
	if _, err := os.Stat(filepath.Dir(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the directories made for the lock stay: %v", err)
	}
	again, err := LockPrefix(dir, "p")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again.Release()
}

func TestFixedPrefix(t *testing.T) {
	vars := SampleVars("app", nil, func(string) string { return "" }, RankVariables{})
	for _, tt := range []struct {
		dir, file string
		fixed     bool
	}{
		{"out", "f", true},
		{"out/%hostname%", "f", true},
		{"out", "%pid%/f", false},
		{"out/%ppid%", "f", false},
		{"out", "%nid%_f", false},
	} {
		if _, _, fixed := FixedPrefix(tt.dir, tt.file, vars); fixed != tt.fixed {
			t.Errorf("-d %s -o %s: fixed %v, want %v", tt.dir, tt.file, fixed, tt.fixed)
		}
	}
}

// The temporary files a killed gorocprof left of this prefix are removed by the next run of it, and
// only those: another prefix's (q, p_x) stay. An earlier output is replaced by a rename, and named.
func TestStaleTempsRemovedAndReplacedNamed(t *testing.T) {
	dir := t.TempDir()
	stale := []string{".p_results.json.tmp-0123456789ab", ".p_counter_collection.csv.tmp-a1b2c3d4e5f6"}
	others := []string{".q_results.json.tmp-0123456789ab", ".p_x_results.json.tmp-0123456789ab", ".p_results.json.tmp-zz", "p_results.json.tmp-0123456789ab"}
	for _, n := range append(slices.Clone(stale), others...) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("left\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	previousOutput(t, dir, "p_results.json")
	f := NewFiles(context.Background(), Options{Dir: dir, File: "p", Formats: []string{"json", "csv"}})
	if err := Stream(readFixture(t, "4242.ndjson"), fakeCounters{}, f); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got := dirFiles(t, dir)
	for _, n := range stale {
		if _, ok := got[n]; ok {
			t.Errorf("stale %s stays", n)
		}
	}
	for _, n := range others {
		if _, ok := got[n]; !ok {
			t.Errorf("%s, not this prefix's, was removed", n)
		}
	}
	if note := ReplacedNote(f.Replaced()); note != "replaced the earlier output "+filepath.Join(dir, "p_results.json") {
		t.Errorf("note %q", note)
	}
}
