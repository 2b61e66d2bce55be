package cli

import (
	"errors"
	"slices"
	"strings"

	"github.com/gorocprof/gorocprof/internal/textdist"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// annotationNargs marks flags that, like rocprofv3's nargs options, take every following word up to
// the next option: `--pmc SQ_WAVES SQ_INSTS_VALU` is one group and `-f json csv` two formats.
const annotationNargs = "gorocprof_nargs"

// annotationWords lists, for a multi-word flag of a command whose positional words are its inputs
// (merge, process), the words it takes after its first: `merge -f json csv out/` gives -f two
// formats and merge one input. Its first word is always its value, so a misspelt one is reported
// as the flag's.
const annotationWords = "gorocprof_words"

// normalizeArgs rewrites the words rocprofv3's parser would gather but pflag would not into forms
// pflag reads as one value:
//   - a multi-word flag takes every following word that does not start with '-'
//     (`--pmc A B` becomes `--pmc=A B`, `-f json csv` becomes `-f=json csv`);
//   - an optional-value boolean followed by a boolean word takes that word (`--kernel-trace false`).
//
// Every flag the command accepts is known here, its own, those it inherits and the persistent ones
// it declares, so that a flag that takes a value never lets its value be mistaken for the
// application. Scanning stops at `--`, and at the first positional word of a command whose flags
// end there (the application of the profiling command and compare), so nothing that belongs to
// the application is ever touched. A command whose positional words are inputs (merge, process)
// takes flags before, between and after them; there a multi-word flag with annotationWords takes
// only those words after its first, so `merge out/ -f json csv` and `merge -f json csv out/` are
// the same. A flag that needs a value followed by `--` is an error, as in rocprofv3: `--` always
// ends the options.
func normalizeArgs(root *cobra.Command, args []string) ([]string, error) {
	cmd, flags := root, flagsOf(root)
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			if sub := findSubcommand(cmd, a); sub != nil && a != "--" {
				// Subcommands have their own flags; keep scanning with those.
				cmd, flags = sub, flagsOf(sub)
				out = append(out, a)
				continue
			}
			if a == "--" || !takesInputs(cmd) {
				return append(out, args[i:]...), nil
			}
			out = append(out, a) // an input; flags may follow it
			continue
		}
		f, inlineValue := lookupFlag(flags, a)
		if f == nil || inlineValue {
			out = append(out, a)
			continue
		}
		switch {
		case f.Annotations[annotationNargs] != nil:
			j := i + 1
			for j < len(args) && !strings.HasPrefix(args[j], "-") && (j == i+1 || takesWord(cmd, f, args[j])) {
				j++
			}
			out = append(out, joinValue(a, strings.Join(args[i+1:j], " "))...)
			i = j - 1
		case f.NoOptDefVal != "":
			if i+1 < len(args) && isBoolWord(args[i+1]) {
				out = append(out, joinValue(a, args[i+1])...)
				i++
			} else {
				out = append(out, a)
			}
		default:
			// A flag that needs a value: its value is the next word, whatever it looks like, except
			// the `--` that ends the options.
			out = append(out, a)
			if i+1 < len(args) {
				if args[i+1] == "--" {
					return nil, usageErrorf("flag needs an argument: %s (found --, which ends the options)", a)
				}
				out = append(out, args[i+1])
				i++
			}
		}
	}
	return out, nil
}

// annotationInputs marks a command (cobra's Command.Annotations) whose positional words are its
// inputs, not an application: flags may stand before, between and after them.
const annotationInputs = "gorocprof_inputs"

func takesInputs(cmd *cobra.Command) bool { return cmd.Annotations[annotationInputs] != "" }

// takesWord says whether a multi-word flag takes word after its first: any word, unless the
// command's positional words are inputs and the flag lists the words it takes (annotationWords),
// compared without case and each of a comma-separated list.
func takesWord(cmd *cobra.Command, f *pflag.Flag, word string) bool {
	allowed := f.Annotations[annotationWords]
	if allowed == nil || !takesInputs(cmd) {
		return true
	}
	parts := splitWords(word)
	for _, p := range parts {
		if !slices.Contains(allowed, strings.ToLower(p)) {
			return false
		}
	}
	return len(parts) > 0
}

// joinValue gives flag word a its value in one word, `--name=value` or `-x=value`, except an empty
// value of a short flag: pflag reads `-f=` as the value "=", so that one is `-f` followed by "".
func joinValue(a, value string) []string {
	if value == "" && !strings.HasPrefix(a, "--") {
		return []string{a, value}
	}
	return []string{a + "=" + value}
}

// flagsOf returns every flag cmd accepts: its own, the persistent ones it declares (cobra merges
// those into cmd.Flags() only when it parses) and those it inherits.
func flagsOf(cmd *cobra.Command) *pflag.FlagSet {
	fs := pflag.NewFlagSet(cmd.Name(), pflag.ContinueOnError)
	fs.AddFlagSet(cmd.Flags())
	fs.AddFlagSet(cmd.PersistentFlags())
	fs.AddFlagSet(cmd.InheritedFlags())
	return fs
}

// lookupFlag finds the flag a word names: `--name`, `--name=v`, `-x` or a cluster such as `-TM`
// or `-dout`; in a cluster it is the flag that takes the words after it. inlineValue reports that
// the word already carries the flag's value.
func lookupFlag(fs *pflag.FlagSet, word string) (f *pflag.Flag, inlineValue bool) {
	if strings.HasPrefix(word, "--") {
		name, _, hasValue := strings.Cut(word[2:], "=")
		return fs.Lookup(name), hasValue
	}
	short := word[1:]
	for k := 0; k < len(short); k++ {
		if short[k] == '=' {
			return f, true
		}
		f = fs.ShorthandLookup(short[k : k+1])
		if f == nil {
			return nil, false
		}
		if f.NoOptDefVal == "" {
			return f, k+1 < len(short)
		}
	}
	return f, false
}

func findSubcommand(cmd *cobra.Command, name string) *cobra.Command {
	for _, sub := range cmd.Commands() {
		if sub.Name() == name || sub.HasAlias(name) {
			return sub
		}
	}
	return nil
}

// flagError turns pflag's complaints into usage errors (exit 2) and adds, for a flag the command
// does not have, the nearest flag names it does accept, or else the commands that have that flag.
func flagError(cmd *cobra.Command, err error) error {
	var missing *pflag.NotExistError
	if !errors.As(err, &missing) {
		return &UsageError{Err: err}
	}
	typed := "--" + missing.GetSpecifiedName()
	sh := missing.GetSpecifiedShortnames()
	if sh != "" {
		// `-kernel-trace` is a long name typed with one dash; `-x` a shorthand nobody defined.
		typed = "-" + sh
	}
	// A rocprofv3 option gorocprof lacks, by its long name or as a shorthand of its own (`-s`,
	// `-P=...`), not as the first letter of a word typed with one dash.
	isShort := sh != ""
	if !isShort || sh == missing.GetSpecifiedName() || strings.HasPrefix(sh, missing.GetSpecifiedName()+"=") {
		if name, ok := unsupportedFlag(missing.GetSpecifiedName(), isShort); ok {
			return usageErrorf("rocprofv3's %s is not supported by gorocprof (docs/rocprofv3.md lists what is)", name)
		}
	}
	if s := suggestFlags(flagsOf(cmd), typed); len(s) > 0 {
		return usageErrorf("%v (did you mean %s?)", err, strings.Join(s, " or "))
	}
	if owners := commandsWithFlag(cmd.Root(), strings.TrimLeft(typed, "-")); len(owners) > 0 {
		last := len(owners) - 1
		if last > 0 {
			owners = []string{strings.Join(owners[:last], ", "), owners[last]}
		}
		return usageErrorf("%v (it is a flag of %s)", err, strings.Join(owners, " and "))
	}
	return &UsageError{Err: err}
}

// commandsWithFlag lists the commands that have a visible flag of this name (`--rtol` belongs to
// compare), by their full names.
func commandsWithFlag(cmd *cobra.Command, name string) []string {
	var out []string
	if f := cmd.LocalFlags().Lookup(name); f != nil && !f.Hidden {
		out = append(out, cmd.CommandPath())
	}
	for _, sub := range cmd.Commands() {
		out = append(out, commandsWithFlag(sub, name)...)
	}
	return out
}

// suggestFlags returns the visible flags whose names are within a small edit distance of typed, or
// that typed begins (an abbreviation), in the order pflag lists them; at most three.
func suggestFlags(fs *pflag.FlagSet, typed string) []string {
	name := strings.TrimLeft(typed, "-")
	name, _, _ = strings.Cut(name, "=")
	if name == "" {
		return nil
	}
	limit := 2
	if len(name) <= 3 {
		limit = 1
	}
	var out []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || len(out) == 3 {
			return
		}
		near := editDistance(name, f.Name) <= limit ||
			(len(name) >= 3 && strings.HasPrefix(f.Name, name)) ||
			(len(name) == 1 && f.Shorthand == name && strings.HasPrefix(typed, "--"))
		if near {
			out = append(out, "--"+f.Name)
		}
	})
	return out
}

// editDistance: see textdist.Distance.
func editDistance(a, b string) int { return textdist.Distance(a, b) }
