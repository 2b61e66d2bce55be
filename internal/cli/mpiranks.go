package cli

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/output"
)

// rankRange is one element of --profile-mpi-ranks: the ranks first..last.
type rankRange struct{ first, last int }

// parseRankList reads --profile-mpi-ranks as rocprofv3 does: ranks and ranges of ranks separated by
// commas ("0-3,8,10-15"), blanks around each allowed. It keeps ranges as ranges, so that "0-999999999"
// costs nothing.
func parseRankList(spec string) ([]rankRange, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, fmt.Errorf("no rank given (expected ranks and ranges such as 0-3,8)")
	}
	var out []rankRange
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		first, err1 := parseRank(lo)
		last, err2 := first, error(nil)
		if isRange {
			last, err2 = parseRank(hi)
		}
		switch {
		case err1 != nil || err2 != nil:
			return nil, fmt.Errorf("invalid rank specification %q: not a rank or a range of ranks (expected ranks and ranges such as 0-3,8)", part)
		case first > last:
			return nil, fmt.Errorf("invalid range %q (start > end)", part)
		}
		out = append(out, rankRange{first, last})
	}
	return out, nil
}

// parseRank reads a rank: decimal digits only, as rocprofv3's pattern has it (no sign, no blanks).
func parseRank(s string) (int, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a rank", s)
	}
	return strconv.Atoi(s)
}

func rankListContains(list []rankRange, rank int) bool {
	return slices.ContainsFunc(list, func(r rankRange) bool { return r.first <= rank && rank <= r.last })
}

// Diagnostics of the MPI rank options, in rocprofv3's words where it has them.
const diagRankVariablesPair = "When using custom MPI environment variables, both --mpi-world-rank-variable and --mpi-world-size-variable must be specified"

// mpiSelection is what the MPI rank options decide about this process.
type mpiSelection struct {
	vars       output.RankVariables
	unprofiled bool   // outside --profile-mpi-ranks: run the application without the tool
	rank       string // this process's rank, when --profile-mpi-ranks asked for it
}

// checkMPIRanks reads --mpi-world-rank-variable, --mpi-world-size-variable and --profile-mpi-ranks
// against this process's environment (getenv): the custom variables come as a pair; a rank list
// must parse, this process must have a rank (a list nobody can be matched against is a mistake, not
// a reason to profile every rank), and no rank of the list may be beyond the world's size.
func checkMPIRanks(o ProfileOptions, getenv func(string) string) (mpiSelection, []string) {
	sel := mpiSelection{vars: output.RankVariables{Rank: o.MPIRankVariable, Size: o.MPISizeVariable}}
	var diags []string
	if (sel.vars.Rank == "") != (sel.vars.Size == "") {
		diags = append(diags, diagRankVariablesPair)
	}
	if o.ProfileMPIRanks == "" {
		return sel, diags
	}
	flag := fmt.Sprintf("--%s %s", optMPIRanks, o.ProfileMPIRanks)
	list, err := parseRankList(o.ProfileMPIRanks)
	if err != nil {
		diags = append(diags, fmt.Sprintf("%s: %v", flag, err))
	}
	if len(diags) > 0 {
		return sel, diags
	}
	w := output.DetectWorld(getenv, sel.vars)
	if w.Rank == "" {
		return sel, []string{fmt.Sprintf("%s: this process has no MPI rank: %s", flag, noRankReason(sel.vars))}
	}
	rank, err := parseRank(w.Rank)
	if err != nil {
		return sel, []string{fmt.Sprintf("%s: the MPI rank %s=%q is not a number", flag, w.RankVar, w.Rank)}
	}
	if w.Size != "" {
		size, err := parseRank(w.Size)
		if err != nil {
			return sel, []string{fmt.Sprintf("%s: the MPI world size %s=%q is not a number", flag, w.SizeVar, w.Size)}
		}
		if most := slices.MaxFunc(list, func(a, b rankRange) int { return cmp.Compare(a.last, b.last) }).last; most >= size {
			valid := "no rank is valid"
			if size > 0 {
				valid = fmt.Sprintf("valid ranks: 0-%d", size-1)
			}
			return sel, []string{fmt.Sprintf("%s: rank %d is out of range: the MPI world size is %d (%s; %s)", flag, most, size, w.SizeVar, valid)}
		}
	}
	sel.rank, sel.unprofiled = w.Rank, !rankListContains(list, rank)
	return sel, nil
}

// noRankReason says which variables were looked at for a rank.
func noRankReason(custom output.RankVariables) string {
	if custom.Rank != "" {
		return fmt.Sprintf("%s (--%s) is not set", custom.Rank, optMPIRankVar)
	}
	return fmt.Sprintf("no launcher set both the rank and the size of one of %s (name other variables with --%s and --%s)",
		output.WorldVariables(custom), optMPIRankVar, optMPISizeVar)
}
