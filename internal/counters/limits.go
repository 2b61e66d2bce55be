package counters

import (
	"fmt"
	"strconv"
	"strings"
)

// blockLimits holds, per GFX family, how many distinct events of each block one pass can count.
type blockLimits struct {
	family map[string]map[string]int
	mi300  map[string]map[string]int // rows noted "MI300": apply to gfx940/941/942 only
}

// mi300 are the architectures whose block tables differ from the rest of gfx9.
var mi300 = map[string]bool{"gfx940": true, "gfx941": true, "gfx942": true}

// umcOverride: the UMC block has registers on MI200 and MI300 only (the gfx9 table says 0).
var umcOverride = map[string]int{"gfx90a": 9, "gfx940": 11, "gfx941": 11, "gfx942": 11}

func parseBlockLimits(text string) (blockLimits, error) {
	l := blockLimits{family: map[string]map[string]int{}, mi300: map[string]map[string]int{}}
	header := false
	for i, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if !header {
			if len(f) < 3 || f[0] != "family" || f[1] != "block" || f[2] != "counters_per_pass" {
				return l, fmt.Errorf("line %d: want the header family, block, counters_per_pass; found %q", i+1, line)
			}
			header = true
			continue
		}
		if len(f) < 3 {
			return l, fmt.Errorf("line %d: want 3 or 4 tab-separated fields, found %q", i+1, line)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 {
			return l, fmt.Errorf("line %d: counters_per_pass %q is not a non-negative integer", i+1, f[2])
		}
		note := ""
		if len(f) > 3 {
			note = strings.TrimSpace(f[3])
		}
		table := l.family
		if strings.HasPrefix(note, "MI300") {
			table = l.mi300
		}
		if table[f[0]] == nil {
			table[f[0]] = map[string]int{}
		}
		table[f[0]][f[1]] = n
	}
	if !header {
		return l, fmt.Errorf("no header line")
	}
	return l, nil
}

// forArch returns the limits of one architecture (or family name). gfx12's table lists only the
// blocks it renamed or added; its other blocks keep gfx11's registers, so gfx12 starts from gfx11.
func (l blockLimits) forArch(arch string) map[string]int {
	fam := family(arch)
	out := map[string]int{}
	if fam == "gfx12" {
		for b, n := range l.family["gfx11"] {
			out[b] = n
		}
	}
	for b, n := range l.family[fam] {
		out[b] = n
	}
	if mi300[arch] {
		for b, n := range l.mi300[fam] {
			out[b] = n
		}
	}
	if n, ok := umcOverride[arch]; ok {
		out["UMC"] = n
	}
	return out
}
