package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// An error is printed in a few lines whatever it holds: a value of 10 MB is cut with its length,
// a message of 50 lines ends with how many more there were.
func TestPrintErrorIsBounded(t *testing.T) {
	huge := strings.Repeat("9", 10<<20)
	msg := "number " + huge + " is too large\n" + strings.Repeat("another line\n", 49)
	var buf bytes.Buffer
	PrintError(&buf, errors.New(msg))
	out := buf.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > maxErrorLines || buf.Len() > 8<<10 {
		t.Fatalf("%d lines, %d bytes", len(lines), buf.Len())
	}
	if !strings.Contains(lines[0], "...(10485760 bytes) is too large") || !strings.HasSuffix(lines[len(lines)-1], "... and 39 more lines") {
		t.Errorf("first line %.200q, last %q", lines[0], lines[len(lines)-1])
	}
}
