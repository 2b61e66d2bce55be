package cli

import (
	"reflect"
	"strings"
	"testing"
)

func TestNormalizeArgs(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{in: "--pmc A B --pmc C -- ./app", want: "--pmc=A B|--pmc=C|--|./app"},
		{in: "--pmc A,B -d out ./app x", want: "--pmc=A,B|-d|out|./app|x"},
		{in: "--pmc --pmc A -- ./app", want: "--pmc=|--pmc=A|--|./app"},
		{in: "--pmc=A B -- ./app", want: "--pmc=A|B|--|./app"}, // with '=' the flag takes exactly its value
		{in: "-f json csv --kernel-trace -- ./app", want: "-f=json csv|--kernel-trace|--|./app"},
		{in: "--kernel-trace false -- ./app", want: "--kernel-trace=false|--|./app"},
		{in: "--kernel-trace ./app", want: "--kernel-trace|./app"},
		{in: "-T yes -M -- ./app", want: "-T=yes|-M|--|./app"},
		{in: "-d --pmc --pmc A -- ./app", want: "-d|--pmc|--pmc=A|--|./app"}, // -d takes the next word, whatever it is
		{in: "-dout ./app --pmc A B", want: "-dout|./app|--pmc|A|B"},         // nothing after the app is touched
		{in: "-- ./app --kernel-trace false", want: "--|./app|--kernel-trace|false"},
		{in: "-TM --kernel-trace -- ./app", want: "-TM|--kernel-trace|--|./app"},
		{in: "plan --pmc A B --pmc C", want: "plan|--pmc=A B|--pmc=C"},
		{in: "avail --agent 1 --json", want: "avail|--agent|1|--json"},
		{in: "--backend sim avail", want: "--backend|sim|avail"},

		// The root's persistent --backend, before multi-word and boolean flags, on the root and
		// before or after a subcommand's name.
		{in: "--backend sim --pmc A B --pmc C -- ./app", want: "--backend|sim|--pmc=A B|--pmc=C|--|./app"},
		{in: "--backend sim --pmc A --quiet false -d out -- ./app", want: "--backend|sim|--pmc=A|--quiet=false|-d|out|--|./app"},
		{in: "--backend sim plan --pmc A B", want: "--backend|sim|plan|--pmc=A B"},
		{in: "plan --backend sim --pmc A B --json", want: "plan|--backend|sim|--pmc=A B|--json"},
		{in: "--backend sim compare --pmc A B -- ./app", want: "--backend|sim|compare|--pmc=A B|--|./app"},
		{in: "compare --backend=sim -TM --pmc A B --rtol 0.1 --pmc C -- ./app", want: "compare|--backend=sim|-TM|--pmc=A B|--rtol|0.1|--pmc=C|--|./app"},
		{in: "compare -T no --log-level info --pmc A -- ./app B", want: "compare|-T=no|--log-level|info|--pmc=A|--|./app|B"},
		{in: "avail --backend sim --agent 1", want: "avail|--backend|sim|--agent|1"},

		// Short clusters and empty values: pflag reads `-f=` as the value "=", so an empty value of a
		// short flag is a separate empty word.
		{in: "-Tf json csv -- ./app", want: "-Tf=json csv|--|./app"},
		{in: "-f -- ./app", want: "-f||--|./app"},
		{in: "-f --pmc A -- ./app", want: "-f||--pmc=A|--|./app"},
		{in: "--output-format json csv --kernel-trace no -- ./app", want: "--output-format=json csv|--kernel-trace=no|--|./app"},
		{in: "-d=out --pmc A -- ./app", want: "-d=out|--pmc=A|--|./app"},
		{in: "--bogus --pmc A B -- ./app", want: "--bogus|--pmc=A B|--|./app"}, // an unknown flag is left to pflag to report

		// merge and process take their inputs among their flags: -f takes the format names after its
		// first word (commas, any case), the inputs stand before, between or after the flags, and
		// after `--` nothing is touched. The profiling command's -f still takes every word.
		{in: "merge out/ -f json csv", want: "merge|out/|-f=json csv"},
		{in: "merge -f json csv out/", want: "merge|-f=json csv|out/"},
		{in: "merge -f JSON,csv rocpd a.json -d x b.json --quiet", want: "merge|-f=JSON,csv rocpd|a.json|-d|x|b.json|--quiet"},
		{in: "merge -f xml a.json", want: "merge|-f=xml|a.json"}, // the first word is -f's, to report
		{in: "merge -f json out -T no", want: "merge|-f=json|out|-T=no"},
		{in: "merge a.json -- -f json", want: "merge|a.json|--|-f|json"},
		{in: "process run1 -f pftrace csv run2", want: "process|run1|-f=pftrace csv|run2"},
		{in: "-f json csv ./app -- x", want: "-f=json csv ./app|--|x"},

		// `--` always ends the options: a flag that needs a value cannot take it.
		{in: "-d -- ./app", err: "flag needs an argument: -d (found --, which ends the options)"},
		{in: "plan --backend -- x", err: "flag needs an argument: --backend (found --, which ends the options)"},
	}
	for _, tt := range tests {
		// A fresh command each time: cobra merges persistent flags into a command's own set as a
		// side effect of some lookups, which would hide a pre-parser that misses them.
		got, err := normalizeArgs(NewRootCmd(&Factory{}), strings.Fields(tt.in))
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("normalizeArgs(%q) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("normalizeArgs(%q): %v", tt.in, err)
		}
		if want := strings.Split(tt.want, "|"); !reflect.DeepEqual(got, want) {
			t.Errorf("normalizeArgs(%q) = %q, want %q", tt.in, got, want)
		}
	}
}

func TestSuggestFlags(t *testing.T) {
	root := NewRootCmd(&Factory{})
	plan := findSubcommand(root, "plan")
	tests := []struct {
		typed string
		want  []string
	}{
		{"--kernel-trcae", []string{"--kernel-trace"}},
		{"-kernel-trace", []string{"--kernel-trace"}},
		{"--replay", []string{"--replay-mode"}},
		{"--output-dir", []string{"--output-directory"}},
		{"--pcm", []string{"--pmc"}},
		{"--d", []string{"--output-directory"}}, // a shorthand typed as a long flag
		{"--quite=false", []string{"--quiet"}},
		{"--frobnicate", nil},
		{"--att", nil}, // hidden flags are not offered
	}
	for _, tt := range tests {
		if got := suggestFlags(flagsOf(root), tt.typed); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("suggestFlags(root, %q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
	if got, want := suggestFlags(flagsOf(plan), "--jsn"), []string{"--json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("suggestFlags(plan, --jsn) = %q, want %q", got, want)
	}
	if got, want := suggestFlags(flagsOf(plan), "--bakend"), []string{"--backend"}; !reflect.DeepEqual(got, want) {
		t.Errorf("suggestFlags(plan, --bakend) = %q, want %q", got, want)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"kitten", "sitting", 3}, {"trcae", "trace", 1}, {"pcm", "pmc", 1}, {"pmc", "pmc", 0}, {"ab", "ba", 1}, {"ca", "abc", 3}} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
