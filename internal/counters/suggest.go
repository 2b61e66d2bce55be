package counters

import (
	"sort"
	"strings"
)

// suggest returns up to max known names closest to name by edit distance (case-insensitive),
// leaving out names so far away that they would only confuse.
func suggest(name string, known []string, max int) []string {
	type cand struct {
		name string
		dist int
	}
	limit := len(name)/3 + 1
	if limit < 2 {
		limit = 2
	}
	seen := map[string]bool{}
	var cands []cand
	lower := strings.ToLower(name)
	for _, k := range known {
		if seen[k] {
			continue
		}
		seen[k] = true
		// Lengths further apart than the limit are further apart in edit distance too: a name of a
		// megabyte is compared with none, in no time.
		if diff := len(k) - len(name); diff > limit || -diff > limit {
			continue
		}
		if d := editDistance(lower, strings.ToLower(k)); d <= limit {
			cands = append(cands, cand{k, d})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for i := 0; i < len(cands) && i < max; i++ {
		out = append(out, cands[i].name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
