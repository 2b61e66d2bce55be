package output

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGroupDirectoryRule: a directory of another user is written in when this user may write it
// through its group and it is set up for the group (setgid or sticky), as a project directory
// (root:proj 2775) is; another user's private directory, one writable by everyone, or one of a
// group this user is not in stays refused, and so, whatever else, does CheckLocation below it.
func TestGroupDirectoryRule(t *testing.T) {
	const proj = 4321
	tests := []struct {
		name      string
		owner     int
		mode      os.FileMode
		member    bool
		ok        bool
		wantInErr string
	}{
		{"project directory root:proj 2775", 0, 0o775 | os.ModeSetgid, true, true, ""},
		{"a member's setgid directory", nobody, 0o775 | os.ModeSetgid, true, true, ""},
		{"sticky group directory 1775", nobody, 0o775 | os.ModeSticky, true, true, ""},
		{"not a member", 0, 0o775 | os.ModeSetgid, false, false, "belongs to another user (uid 0)"},
		{"group may not write", 0, 0o755 | os.ModeSetgid, true, false, "belongs to another user"},
		{"group-writable, neither setgid nor sticky", nobody, 0o775, true, false, "belongs to another user"},
		{"writable by everyone", 0, 0o777 | os.ModeSetgid, true, false, "belongs to another user"},
		{"another user's private directory", nobody, 0o700, true, false, "belongs to another user"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if os.Geteuid() != 0 {
				t.Skip("giving a directory to another user and group needs root")
			}
			groups := []int{}
			if tc.member {
				groups = []int{proj}
			}
			saved := userGroups
			userGroups = func() []int { return groups }
			t.Cleanup(func() { userGroups = saved })

			dir := filepath.Join(t.TempDir(), "shared")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Lchown(dir, tc.owner, proj); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tc.mode); err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(dir)
			if err != nil {
				t.Fatal(err)
			}
			// As uid 1000: neither root nor the owner.
			err = ownerError(dir, info, 1000)
			if (err == nil) != tc.ok {
				t.Fatalf("mode %v owner %d member %v: err = %v, want ok=%v", tc.mode, tc.owner, tc.member, err, tc.ok)
			}
			if err != nil && !strings.Contains(err.Error(), tc.wantInErr) {
				t.Errorf("refusal %q does not say %q", err, tc.wantInErr)
			}
		})
	}
}
