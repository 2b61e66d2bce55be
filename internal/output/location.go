package output

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// The output directory is often shared (a scratch directory, /tmp) and gorocprof often runs as root,
// so nothing another user put there may redirect a write: every file is created under a new name
// with O_EXCL (a name already there, a planted symbolic link included, is never opened) and renamed
// over its final name (rename replaces a symbolic link, not what it points to); the directories
// below -d are entered without following symbolic links; and a directory that another user could
// change under us is refused (ownerError).

// location is the directory one file prefix is written in, opened so that its files cannot land
// anywhere else: the -d directory as the user named it (the symbolic links of that path are the
// user's own and are followed), then each directory of the prefix below it.
type location struct {
	root   *os.Root
	path   string // as users read it, for messages
	uid    int    // the user gorocprof writes as
	sticky bool   // the directory is sticky: other users' entries in it are not ours to replace
}

// openLocation opens dir/sub for writing, creating what is missing, as user uid (os.Geteuid()
// outside tests). sub is the directory part of a file prefix and must stay below dir.
func openLocation(dir, sub string, uid int) (*location, error) {
	return walkLocation(dir, sub, uid, true)
}

// checkOwners makes the checks of openLocation on what exists of dir/sub and creates nothing.
func checkOwners(dir, sub string, uid int) error {
	loc, err := walkLocation(dir, sub, uid, false)
	if loc != nil {
		loc.close()
	}
	return err
}

// walkLocation opens dir, then each directory of sub below it. Without create it stops, with a nil
// location and no error, where a directory is missing.
func walkLocation(dir, sub string, uid int, create bool) (*location, error) {
	if dir == "" {
		dir = "."
	}
	if !filepath.IsLocal(sub) {
		return nil, fmt.Errorf("%q leaves the output directory %s", sub, dir)
	}
	if exists, err := outputDir(dir, uid, create); err != nil || !exists {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening the output directory: %w", err)
	}
	loc := &location{root: root, path: dir, uid: uid}
	if err := loc.check(); err != nil {
		loc.close()
		return nil, err
	}
	for _, name := range strings.Split(filepath.Clean(sub), string(filepath.Separator)) {
		if name == "." {
			continue
		}
		exists, err := loc.enter(name, create)
		if err != nil || !exists {
			loc.close()
			return nil, err
		}
	}
	return loc, nil
}

// outputDir checks the output directory dir, or when it is missing the directory it would be
// created in, and creates it when create is set; it says whether dir exists now. A dir that is a
// symbolic link must belong to this user or root: another user's link would choose where the
// files go.
func outputDir(dir string, uid int, create bool) (bool, error) {
	if info, err := os.Lstat(dir); err == nil {
		if info.Mode()&fs.ModeSymlink != 0 {
			if owner := fileOwner(info); owner != uid && owner != 0 {
				return false, fmt.Errorf("the output directory %s is a symbolic link of another user (uid %d): refusing to follow it", dir, owner)
			}
		}
		return true, nil
	}
	existing, _, err := nearestDir(dir)
	if err != nil {
		return false, err
	}
	info, err := os.Stat(existing)
	if err != nil {
		return false, err
	}
	if err := ownerError(existing, info, uid); err != nil || !create {
		return false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("creating output directory: %w", err)
	}
	return true, nil
}

// enter makes the subdirectory name of the current directory the current one, never through a
// symbolic link, and checks it like the output directory. A missing one is created when create is
// set; otherwise enter says it does not exist.
func (l *location) enter(name string, create bool) (bool, error) {
	shown := filepath.Join(l.path, name)
	info, err := l.root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		if !create {
			return false, nil
		}
		if err = l.root.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return false, fmt.Errorf("creating output directory %s: %w", shown, err)
		}
		info, err = l.root.Lstat(name)
	}
	switch {
	case err != nil:
		return false, fmt.Errorf("output directory %s: %w", shown, err)
	case info.Mode()&fs.ModeSymlink != 0:
		return false, fmt.Errorf("%s is a symbolic link: gorocprof follows none below the output directory", shown)
	case !info.IsDir():
		return false, fmt.Errorf("%s exists and is not a directory", shown)
	}
	// Root resolves name beneath the current directory whatever was swapped in since the Lstat,
	// and check looks at what was opened.
	sub, err := l.root.OpenRoot(name)
	if err != nil {
		return false, fmt.Errorf("opening output directory %s: %w", shown, err)
	}
	l.root.Close()
	l.root, l.path = sub, shown
	return true, l.check()
}

// check applies ownerError to the current directory.
func (l *location) check() error {
	info, err := l.root.Stat(".")
	if err != nil {
		return fmt.Errorf("output directory %s: %w", l.path, err)
	}
	l.sticky = info.Mode()&fs.ModeSticky != 0
	return ownerError(l.path, info, l.uid)
}

// ownerError refuses a directory that another user could change under us. A directory of our own is
// ours to share. Another user's directory is refused unless it is sticky and owned by root, as /tmp
// is: there nobody but root may remove or rename what we create, so our files stay ours (and an
// existing name of another user there is refused by commit rather than replaced). A sticky
// directory of another ordinary user is refused too: its owner may replace any entry in it.
//
// A group's directory is the exception (groupShared): one that this user may write through its
// group, marked setgid or sticky as a project directory is (root:proj 2775), and not writable by
// everyone. Its owner and the group's members may replace what we write there, which is what the
// group set it up for; another user's private directory is none of that.
func ownerError(path string, info fs.FileInfo, uid int) error {
	owner := fileOwner(info)
	if owner == uid || (owner == 0 && info.Mode()&fs.ModeSticky != 0) || groupShared(info) {
		return nil
	}
	return fmt.Errorf("refusing to write in %s: it belongs to another user (uid %d) and is neither a sticky directory of root's like /tmp "+
		"nor a setgid or sticky directory your group may write in, so its owner could replace the files written there; "+
		"choose with -d a directory of your own, or a new one below /tmp (docs/output.md, \"Output directories\")", path, owner)
}

// userGroups are the groups this process writes with: its effective group and the supplementary
// ones. A variable, so that the tests can be a member of a group.
var userGroups = func() []int {
	groups, _ := os.Getgroups()
	return append(groups, os.Getegid())
}

// groupShared: see ownerError.
func groupShared(info fs.FileInfo) bool {
	mode := info.Mode()
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || mode&0o020 == 0 || mode&0o002 != 0 || mode&(fs.ModeSetgid|fs.ModeSticky) == 0 {
		return false
	}
	return slices.Contains(userGroups(), int(st.Gid))
}

func fileOwner(info fs.FileInfo) int {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// createTemp creates a new file for the output named final, under a hidden name of its own in the
// same directory (a rename within one file system is atomic). O_EXCL: it never opens what is
// already there.
func (l *location) createTemp(final string) (*os.File, string, error) {
	for range 100 {
		var b [6]byte
		_, _ = rand.Read(b[:])
		name := "." + final + ".tmp-" + hex.EncodeToString(b[:])
		f, err := l.root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("writing output %s: %w", filepath.Join(l.path, final), err)
		}
		return f, name, nil
	}
	return nil, "", fmt.Errorf("writing output %s: no free temporary name", filepath.Join(l.path, final))
}

// place renames the complete temporary file tmp over final. An existing final name that is a
// directory is refused, and so is another user's entry in a sticky directory: the kernel refuses
// that rename to everyone but root, and root should not take another user's name either.
func (l *location) place(tmp, final string) error {
	shown := filepath.Join(l.path, final)
	if info, err := l.root.Lstat(final); err == nil {
		if info.IsDir() {
			return fmt.Errorf("writing output %s: it is a directory", shown)
		}
		if owner := fileOwner(info); l.sticky && owner != l.uid {
			return fmt.Errorf("writing output %s: the name belongs to another user (uid %d) in a shared directory: refusing to replace it", shown, owner)
		}
	}
	if err := l.root.Rename(tmp, final); err != nil {
		return fmt.Errorf("writing output %s: %w", shown, err)
	}
	return nil
}

// syncDir makes the renames durable. File systems that cannot sync a directory say EINVAL; that
// is no reason to fail a run whose files are complete.
func (l *location) syncDir() error {
	d, err := l.root.Open(".")
	if err != nil {
		return fmt.Errorf("output directory %s: %w", l.path, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("output directory %s: %w", l.path, err)
	}
	return nil
}

func (l *location) remove(name string) { _ = l.root.Remove(name) }

func (l *location) close() { _ = l.root.Close() }
