package cli

import (
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/output"
)

// TestPlaceholderWords: the words unknownPlaceholders accepts are those output.ExpandPath expands.
func TestPlaceholderWords(t *testing.T) {
	v := output.PathVars{Hostname: "h", PID: 1, PPID: 2, CWD: "/c", Args: []string{"/bin/app", "x"}}
	for _, w := range append(placeholderWords, "hostnme", "foo") {
		got, err := output.ExpandPath("%"+w+"%", v)
		if err != nil {
			t.Fatal(err)
		}
		known := !strings.Contains(got, w) // %hostnme% is %h followed by "ostnme%"
		if refused := len(unknownPlaceholders("output-file", "%"+w+"%")) > 0; refused == known {
			t.Errorf("%%%s%%: ExpandPath expands it: %v, unknownPlaceholders refuses it: %v", w, known, refused)
		}
	}
}
