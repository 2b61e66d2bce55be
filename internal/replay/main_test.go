package replay

import (
	"os"
	"testing"
)

// TestMain removes the merge benchmarks' fixture, which they share across their b.N rounds.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchFixture.dir != "" {
		_ = os.RemoveAll(benchFixture.dir)
	}
	os.Exit(code)
}
