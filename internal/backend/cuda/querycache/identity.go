package querycache

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gorocprof/gorocprof/internal/boundedread"
)

// helperDigest is the helper's part of every identity (hashHelper), as one SHA-256 sum.
func (s *Store) helperDigest(helperPath string) ([]byte, error) {
	h := sha256.New()
	if err := hashHelper(h, helperPath, filepath.Join(s.driver, "version")); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// chipIdentity is the fingerprint of everything that decides a query helper's answers about one chip:
// the helper's bytes, the shared libraries it loads from its own search path (CUPTI among them), the
// loaded driver (all three in helperDigest) and the chip. Answers cached under one identity are never
// used under another.
func chipIdentity(helper []byte, chip string) string {
	h := sha256.New()
	fmt.Fprintf(h, "gorocprof query cache %d\nchip %s\nhelper %x\n", formatVersion, chip, helper)
	return hex.EncodeToString(h.Sum(nil))
}

// hashHelper writes the helper's part of an identity: its bytes, its libraries and the driver, whose
// version file names the loaded NVIDIA kernel driver (a driver update changes what CUPTI reports).
func hashHelper(w io.Writer, helperPath, driverVersionFile string) error {
	if err := hashFile(w, helperPath); err != nil {
		return fmt.Errorf("fingerprinting query helper: %w", err)
	}
	libs, err := neededLibraries(helperPath)
	if err != nil {
		return fmt.Errorf("fingerprinting query helper %s: %w", helperPath, err)
	}
	for _, lib := range libs {
		fmt.Fprintf(w, "lib %s\n", lib)
	}
	if data, err := boundedread.File(driverVersionFile, procFileLimit); err == nil {
		fmt.Fprintf(w, "driver %s\n", data)
	}
	return nil
}

// procFileLimit bounds what is read of a driver file under /proc: a line or a few.
const procFileLimit = 64 << 10

func hashFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// neededLibraries lists, for each library the helper's ELF header asks for that can be found in the
// helper's RPATH/RUNPATH or LD_LIBRARY_PATH, where it is, its size and its modification time: the CUPTI
// and driver libraries a CUDA helper was linked against are found this way (the build records their
// directory in the helper's run path), so installing another CUPTI there changes the identity. A helper
// that is not ELF (a script) has none. Libraries found only through the system loader's cache are the
// system's own and are not followed.
func neededLibraries(path string) ([]string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	needed, err := f.ImportedLibraries()
	if err != nil {
		return nil, fmt.Errorf("reading its needed libraries: %w", err)
	}
	var dirs []string
	origin := filepath.Dir(path)
	for _, tag := range []elf.DynTag{elf.DT_RPATH, elf.DT_RUNPATH} {
		values, err := f.DynString(tag)
		if err != nil {
			return nil, fmt.Errorf("reading its run path: %w", err)
		}
		for _, v := range values {
			for _, d := range filepath.SplitList(v) {
				d = strings.ReplaceAll(strings.ReplaceAll(d, "${ORIGIN}", origin), "$ORIGIN", origin)
				dirs = append(dirs, d)
			}
		}
	}
	dirs = append(dirs, filepath.SplitList(os.Getenv("LD_LIBRARY_PATH"))...)
	var out []string
	for _, name := range needed {
		for _, d := range dirs {
			if d == "" {
				continue
			}
			p := filepath.Join(d, name)
			st, err := os.Stat(p)
			if err != nil {
				continue
			}
			out = append(out, fmt.Sprintf("%s %s %d %d", name, p, st.Size(), st.ModTime().UnixNano()))
			break
		}
	}
	return out, nil
}
