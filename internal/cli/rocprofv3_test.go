package cli

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestRocprofv3FlagsDocumented: docs/rocprofv3.md has one row per rocprofv3 option, saying
// "supported" or "recognised" of exactly those gorocprof has and "not supported" of the others.
func TestRocprofv3FlagsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/rocprofv3.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`-") {
			continue
		}
		rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = strings.TrimSpace(cells[2])
	}
	for _, f := range rocprofv3Flags {
		name := "--" + f.long
		if f.short != "" {
			name = "-" + f.short + ", --" + f.long
		}
		status, ok := rows[name]
		if !ok {
			t.Errorf("docs/rocprofv3.md has no row for rocprofv3's %s", name)
			continue
		}
		delete(rows, name)
		if refused := strings.HasPrefix(status, "not supported"); refused == f.has {
			t.Errorf("docs/rocprofv3.md says %q of %s, the table in rocprofv3.go has has=%v", status, name, f.has)
		}
	}
	for name := range rows {
		t.Errorf("docs/rocprofv3.md has a row for %s, which rocprofv3Flags lacks", name)
	}
}

// TestRocprofv3Flags: gorocprof has every flag the table says it has, and refuses every other one
// by its rocprofv3 name, long and short, before and after a subcommand.
func TestRocprofv3Flags(t *testing.T) {
	root := NewRootCmd(&Factory{})
	root.InitDefaultVersionFlag()
	flags := flagsOf(root)
	for _, f := range rocprofv3Flags {
		if f.has {
			if flags.Lookup(f.long) == nil || (f.short != "" && flags.ShorthandLookup(f.short) == nil) {
				t.Errorf("rocprofv3Flags says gorocprof has --%s (-%s), the command lacks it", f.long, f.short)
			}
			continue
		}
		if flags.Lookup(f.long) != nil {
			t.Errorf("rocprofv3Flags says gorocprof lacks --%s, the command has it", f.long)
			continue
		}
		words := [][]string{{"--" + f.long, "--", "./app"}, {"merge", "--" + f.long + "=1", "out"}}
		if f.short != "" {
			words = append(words, []string{"-" + f.short, "--", "./app"})
		}
		for _, args := range words {
			err := Execute(context.Background(), NewRootCmd(NewFactory()), args)
			if err == nil || !strings.Contains(err.Error(), "rocprofv3's ") || !strings.Contains(err.Error(), "--"+f.long+" is not supported by gorocprof") {
				t.Errorf("%q: got %v, want rocprofv3's ...--%s is not supported by gorocprof", args, err, f.long)
			}
			if ExitCode(err) != ExitUsage {
				t.Errorf("%q: exit %d, want %d", args, ExitCode(err), ExitUsage)
			}
		}
	}
}
