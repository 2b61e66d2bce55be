package helper

import (
	"debug/elf"
	"slices"
	"strings"
)

// LinksLibrary reports whether the executable at path is an ELF file that links a library whose
// name starts with soname (libamdhip64.so matches libamdhip64.so.6): how `--backend auto` tells
// the applications of one runtime from another's.
func LinksLibrary(path, soname string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		return false
	}
	return slices.ContainsFunc(libs, func(l string) bool { return strings.HasPrefix(l, soname) })
}
