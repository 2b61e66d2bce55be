package cli

import (
	"reflect"
	"strings"
	"testing"
)

func TestNormalizeArgs(t *testing.T) {
	root := NewRootCmd(&Factory{})
	tests := []struct{ in, want string }{
		{"--pmc A B --pmc C -- ./app", "--pmc=A B|--pmc=C|--|./app"},
		{"--pmc A,B -d out ./app x", "--pmc=A,B|-d|out|./app|x"},
		{"--pmc --pmc A -- ./app", "--pmc=|--pmc=A|--|./app"},
		{"--pmc=A B -- ./app", "--pmc=A|B|--|./app"}, // with '=' the flag takes exactly its value
		{"-f json csv --kernel-trace -- ./app", "-f=json csv|--kernel-trace|--|./app"},
		{"--kernel-trace false -- ./app", "--kernel-trace=false|--|./app"},
		{"--kernel-trace ./app", "--kernel-trace|./app"},
		{"-T yes -M -- ./app", "-T=yes|-M|--|./app"},
		{"-d --pmc --pmc A -- ./app", "-d|--pmc|--pmc=A|--|./app"}, // -d takes the next word, whatever it is
		{"-dout ./app --pmc A B", "-dout|./app|--pmc|A|B"},         // nothing after the app is touched
		{"-- ./app --kernel-trace false", "--|./app|--kernel-trace|false"},
		{"-TM --kernel-trace -- ./app", "-TM|--kernel-trace|--|./app"},
		{"plan --pmc A B --pmc C", "plan|--pmc=A B|--pmc=C"},
		{"avail --agent 1 --json", "avail|--agent|1|--json"},
		{"--backend sim avail", "--backend|sim|avail"},
	}
	for _, tt := range tests {
		got := normalizeArgs(root, strings.Fields(tt.in))
		if want := strings.Split(tt.want, "|"); !reflect.DeepEqual(got, want) {
			t.Errorf("normalizeArgs(%q) = %q, want %q", tt.in, got, want)
		}
	}
}
