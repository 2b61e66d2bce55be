package cli

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestReadmeFlagTables checks README.md's flag tables against the cobra commands, so that a flag added,
// renamed or given another default cannot go undocumented. A table row documents the flags in its first
// cell: a run's flags, or, when the cell begins with a subcommand's name (`merge -o NAME`), that
// subcommand's. Every visible flag of the run has exactly one row, with its shorthand beside it; a
// subcommand's flag has a row of its own unless it is the run's flag of the same name, shorthand and
// default (the README says those mean what they mean in a run). A row that names a flag its command lacks
// fails too, and a flag's default must be said in its row ("default X", "X (default").
func TestReadmeFlagTables(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	root := NewRootCmd(&Factory{})
	root.InitDefaultVersionFlag()
	rows := flagRows(string(readme), subcommandNames(root))
	if len(rows) == 0 {
		t.Fatal("README.md has no flag table (a table whose first header cell is \"flag\")")
	}
	for _, p := range checkFlagTables(root, rows) {
		t.Error(p)
	}
}

// TestCheckFlagTables shows the check has power: each README below misses what its name says.
func TestCheckFlagTables(t *testing.T) {
	root := &cobra.Command{Use: "gorocprof"}
	root.Flags().StringP("output-directory", "d", ".", "directory")
	root.Flags().String("backend", "", "backend (default \"auto\")")
	sub := &cobra.Command{Use: "merge"}
	sub.Flags().StringP("output-directory", "d", ".", "directory")
	sub.Flags().StringP("output-file", "o", "merged", "prefix")
	root.AddCommand(sub)
	const good = "| flag | meaning |\n| --- | --- |\n" +
		"| `-d, --output-directory DIR` | where (default `.`) |\n" +
		"| `--backend auto\\|sim` | which (default `auto`) |\n" +
		"| `merge -o, --output-file NAME` | prefix (default `merged`) |\n"
	tries := &cobra.Command{Use: "gorocprof"}
	tries.Flags().Int("tries", -1, "how often (default: until it works)")
	tests := []struct {
		name, readme string
		want         []string
		cmd          *cobra.Command
	}{
		{"complete", good, nil, root},
		{"undocumented flag", strings.Replace(good, "| `--backend auto\\|sim` | which (default `auto`) |\n", "", 1),
			[]string{"gorocprof --backend: no row of README.md's flag tables documents it"}, root},
		{"flag documented twice", good + "| `--backend` | again (default `auto`) |\n",
			[]string{"gorocprof --backend: documented in 2 rows of README.md's flag tables, not once"}, root},
		{"shorthand missing", strings.Replace(good, "`-d, --output-directory DIR`", "`--output-directory DIR`", 1),
			[]string{"gorocprof --output-directory: its row does not name its shorthand -d"}, root},
		{"default missing", strings.Replace(good, "which (default `auto`)", "which", 1),
			[]string{`gorocprof --backend: its row does not say its default "auto"`}, root},
		{"subcommand flag with another default", strings.Replace(good, "| `merge -o, --output-file NAME` | prefix (default `merged`) |\n", "", 1),
			[]string{"gorocprof merge --output-file: no row of README.md's flag tables documents it"}, root},
		{"flag that does not exist", good + "| `merge --json` | JSON |\n",
			[]string{"gorocprof merge: README.md documents --json, which it does not have"}, root},
		{"two defaults in the help", "| flag | meaning |\n| --- | --- |\n| `--tries N` | how often (default: until it works) |\n",
			[]string{`gorocprof --tries: its help gives two defaults, its usage's and "-1"`}, tries},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkFlagTables(tt.cmd, flagRows(tt.readme, subcommandNames(tt.cmd)))
			if !slices.Equal(got, tt.want) {
				t.Errorf("problems:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

// flagRow is one row of a README flag table: the command it documents ("" for a run) and its text.
type flagRow struct {
	command string
	flags   []string // long names and shorthands of the first cell, with their dashes
	text    string   // the whole row without backticks and escapes, to find a default in
}

var (
	tableCell = regexp.MustCompile(`(?:\\\||[^|])+`)
	longFlag  = regexp.MustCompile(`--[a-z][a-z0-9-]*`)
	shortFlag = regexp.MustCompile("(?:^|[\\s`/(,])(-[A-Za-z])\\b")
	usageDef  = regexp.MustCompile(`\(default:? ([^)]*)\)`)
)

// flagRows reads the rows of every table whose first header cell is "flag".
func flagRows(readme string, subcommands []string) []flagRow {
	var rows []flagRow
	inTable := false
	for _, line := range strings.Split(readme, "\n") {
		if !strings.HasPrefix(line, "|") {
			inTable = false
			continue
		}
		cells := tableCell.FindAllString(line, -1)
		if len(cells) == 0 {
			continue
		}
		first := strings.TrimSpace(cells[0])
		switch {
		case !inTable:
			inTable = first == "flag"
			continue
		case strings.HasPrefix(first, "---"):
			continue
		}
		code := strings.ReplaceAll(first, "`", "")
		row := flagRow{text: strings.NewReplacer("`", "", `\|`, "|").Replace(line)}
		if word, _, _ := strings.Cut(code, " "); slices.Contains(subcommands, word) {
			row.command, code = word, strings.TrimPrefix(code, word)
		}
		row.flags = longFlag.FindAllString(code, -1)
		for _, m := range shortFlag.FindAllStringSubmatch(code, -1) {
			row.flags = append(row.flags, m[1])
		}
		rows = append(rows, row)
	}
	return rows
}

func subcommandNames(root *cobra.Command) []string {
	var names []string
	for _, c := range root.Commands() {
		names = append(names, c.Name())
	}
	return names
}

// checkFlagTables returns what the rows get wrong about root's and its subcommands' flags.
func checkFlagTables(root *cobra.Command, rows []flagRow) []string {
	var problems []string
	problems = append(problems, checkCommandFlags(root, nil, rows)...)
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" { // cobra's own
			continue
		}
		problems = append(problems, checkCommandFlags(c, root, rows)...)
	}
	return problems
}

// checkCommandFlags checks one command's own flags (a subcommand's inherited ones are the run's).
func checkCommandFlags(cmd, root *cobra.Command, all []flagRow) []string {
	name := ""
	if root != nil {
		name = cmd.Name()
	}
	var rows []flagRow
	for _, r := range all {
		if r.command == name {
			rows = append(rows, r)
		}
	}
	var problems []string
	say := func(format string, args ...any) {
		problems = append(problems, strings.TrimSpace("gorocprof "+name)+" "+fmt.Sprintf(format, args...))
	}
	known := map[string]bool{}
	fs := cmd.LocalNonPersistentFlags()
	if root == nil {
		fs.AddFlagSet(cmd.PersistentFlags())
	}
	fs.VisitAll(func(f *pflag.Flag) {
		known["--"+f.Name] = true
		if f.Shorthand != "" {
			known["-"+f.Shorthand] = true
		}
		if f.Hidden || f.Name == "help" {
			return
		}
		if usageDef.MatchString(f.Usage) && printedDefault(f) != "" {
			say("--%s: its help gives two defaults, its usage's and %q", f.Name, f.DefValue)
		}
		if root != nil && sameFlag(f, root.Flags().Lookup(f.Name)) {
			return
		}
		var mine []flagRow
		for _, r := range rows {
			if slices.Contains(r.flags, "--"+f.Name) {
				mine = append(mine, r)
			}
		}
		switch {
		case len(mine) == 0:
			say("--%s: no row of README.md's flag tables documents it", f.Name)
			return
		case len(mine) > 1:
			say("--%s: documented in %d rows of README.md's flag tables, not once", f.Name, len(mine))
			return
		}
		if f.Shorthand != "" && !slices.Contains(mine[0].flags, "-"+f.Shorthand) {
			say("--%s: its row does not name its shorthand -%s", f.Name, f.Shorthand)
		}
		if d := flagDefault(f); d != "" && !saysDefault(mine[0].text, d) {
			say("--%s: its row does not say its default %q", f.Name, d)
		}
	})
	for _, r := range rows {
		for _, fl := range r.flags {
			if !known[fl] {
				problems = append(problems, strings.TrimSpace("gorocprof "+name)+": README.md documents "+fl+", which it does not have")
			}
		}
	}
	return problems
}

// sameFlag: a subcommand's flag that is the run's flag of that name, shorthand and default.
func sameFlag(f, run *pflag.Flag) bool {
	return run != nil && f.Shorthand == run.Shorthand && flagDefault(f) == flagDefault(run)
}

// flagDefault is the default the help text gives: the usage's own "(default ...)" words, else the value
// pflag prints as "(default ...)".
func flagDefault(f *pflag.Flag) string {
	if m := usageDef.FindStringSubmatch(f.Usage); m != nil {
		return strings.Trim(m[1], `"`)
	}
	return printedDefault(f)
}

// printedDefault is the value pflag's help prints as "(default ...)": one that is not its type's zero.
func printedDefault(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "false", "0", "[]":
		return ""
	}
	return f.DefValue
}

func saysDefault(row, value string) bool {
	return strings.Contains(row, "default "+value) || strings.Contains(row, "default: "+value) ||
		strings.Contains(row, value+" (default")
}
