package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// annotationNargs marks flags that, like rocprofv3's nargs options, take every following word up to
// the next option: `--pmc SQ_WAVES SQ_INSTS_VALU` is one group and `-f json csv` two formats.
const annotationNargs = "gorocprof_nargs"

// normalizeArgs rewrites the words rocprofv3's parser would gather but pflag would not into the
// `--flag=value` form pflag understands:
//   - a multi-word flag takes every following word that does not start with '-';
//   - an optional-value boolean followed by a boolean word takes that word (`--kernel-trace false`).
//
// Scanning stops at `--` or at the first positional word (the application or a subcommand), so
// nothing that belongs to the application is ever touched.
func normalizeArgs(root *cobra.Command, args []string) []string {
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
			return append(out, args[i:]...)
		}
		f, inlineValue := lookupFlag(flags, a)
		if f == nil || inlineValue {
			out = append(out, a)
			continue
		}
		switch {
		case f.Annotations[annotationNargs] != nil:
			j := i + 1
			for j < len(args) && !strings.HasPrefix(args[j], "-") {
				j++
			}
			out = append(out, a+"="+strings.Join(args[i+1:j], " "))
			i = j - 1
		case f.NoOptDefVal != "":
			if i+1 < len(args) && isBoolWord(args[i+1]) {
				out = append(out, a+"="+args[i+1])
				i++
			} else {
				out = append(out, a)
			}
		default:
			// A flag that needs a value: its value is the next word, whatever it looks like.
			out = append(out, a)
			if i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		}
	}
	return out
}

// flagsOf returns every flag cmd accepts, its own and those it inherits.
func flagsOf(cmd *cobra.Command) *pflag.FlagSet {
	fs := pflag.NewFlagSet(cmd.Name(), pflag.ContinueOnError)
	fs.AddFlagSet(cmd.Flags())
	fs.AddFlagSet(cmd.InheritedFlags())
	return fs
}

// lookupFlag finds the flag a word names: `--name`, `--name=v`, `-x` or a cluster such as `-TM`
// or `-dout`. inlineValue reports that the word already carries the flag's value.
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
