package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/output"
)

func TestParseRankList(t *testing.T) {
	tests := []struct {
		spec    string
		want    []rankRange
		wantErr string
	}{
		{"0", []rankRange{{0, 0}}, ""},
		{"0-3,8", []rankRange{{0, 3}, {8, 8}}, ""},
		{" 0-3 , 8 ,10-15", []rankRange{{0, 3}, {8, 8}, {10, 15}}, ""},
		{"4-4", []rankRange{{4, 4}}, ""},
		{"0-999999999999", []rankRange{{0, 999999999999}}, ""},
		{"", nil, "no rank given"},
		{"  ", nil, "no rank given"},
		{"3-1", nil, `invalid range "3-1" (start > end)`},
		{"0,,2", nil, `invalid rank specification ""`},
		{"1,x", nil, `invalid rank specification "x"`},
		{"-1", nil, `invalid rank specification "-1"`},
		{"1-", nil, `invalid rank specification "1-"`},
		{"1-2-3", nil, `invalid rank specification "1-2-3"`},
		{"+1", nil, `invalid rank specification "+1"`},
		{"1 2", nil, `invalid rank specification "1 2"`},
		{"99999999999999999999", nil, `invalid rank specification "99999999999999999999"`},
	}
	for _, tc := range tests {
		got, err := parseRankList(tc.spec)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("parseRankList(%q) error = %v, want one containing %q", tc.spec, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || !slices.Equal(got, tc.want)):
			t.Errorf("parseRankList(%q) = %v, %v; want %v", tc.spec, got, err, tc.want)
		}
	}
}

func TestCheckMPIRanks(t *testing.T) {
	ompi := func(rank, size string) map[string]string {
		return map[string]string{"OMPI_COMM_WORLD_RANK": rank, "OMPI_COMM_WORLD_SIZE": size}
	}
	tests := []struct {
		name           string
		ranks, rv, sv  string
		env            map[string]string
		wantUnprofiled bool
		wantRank       string
		wantDiag       string // "" for none
	}{
		{"no list profiles every process", "", "", "", nil, false, "", ""},
		{"listed rank", "0-3,8", "", "", ompi("8", "16"), false, "8", ""},
		{"rank outside the list", "0-3,8", "", "", ompi("5", "16"), true, "5", ""},
		{"Slurm's pair before Open MPI's", "1", "", "", map[string]string{"SLURM_PROCID": "1", "SLURM_NTASKS": "2",
			"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2"}, false, "1", ""},
		{"custom variables", "2", "R", "S", map[string]string{"R": "2", "S": "4", "SLURM_PROCID": "0", "SLURM_NTASKS": "4"}, false, "2", ""},
		{"custom size unset: no range check", "7", "R", "S", map[string]string{"R": "1"}, true, "1", ""},
		{"no rank", "0", "", "", map[string]string{"OMPI_COMM_WORLD_RANK": "1"}, false, "",
			"--profile-mpi-ranks 0: this process has no MPI rank: no launcher set both the rank and the size of one of PBS_NODENUM/PBS_O_TASKNUM, "},
		{"custom rank unset", "0", "R", "S", ompi("0", "4"), false, "",
			"--profile-mpi-ranks 0: this process has no MPI rank: R (--mpi-world-rank-variable) is not set"},
		{"rank beyond the world", "0-3,8", "", "", ompi("1", "4"), false, "",
			"--profile-mpi-ranks 0-3,8: rank 8 is out of range: the MPI world size is 4 (OMPI_COMM_WORLD_SIZE; valid ranks: 0-3)"},
		{"a world of none", "0", "", "", ompi("0", "0"), false, "",
			"--profile-mpi-ranks 0: rank 0 is out of range: the MPI world size is 0 (OMPI_COMM_WORLD_SIZE; no rank is valid)"},
		{"rank not a number", "0", "", "", ompi("one", "4"), false, "", `the MPI rank OMPI_COMM_WORLD_RANK="one" is not a number`},
		{"size not a number", "0", "", "", ompi("0", "four"), false, "", `the MPI world size OMPI_COMM_WORLD_SIZE="four" is not a number`},
		{"bad list", "0-x", "", "", ompi("0", "4"), false, "", `--profile-mpi-ranks 0-x: invalid rank specification "0-x"`},
		{"rank variable alone", "", "R", "", nil, false, "", diagRankVariablesPair},
		{"size variable alone", "", "", "S", nil, false, "", diagRankVariablesPair},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := ProfileOptions{ProfileMPIRanks: tc.ranks, MPIRankVariable: tc.rv, MPISizeVariable: tc.sv}
			sel, diags := checkMPIRanks(o, func(k string) string { return tc.env[k] })
			if tc.wantDiag != "" {
				if len(diags) != 1 || !strings.Contains(diags[0], tc.wantDiag) {
					t.Fatalf("diagnostics %q, want one containing %q", diags, tc.wantDiag)
				}
				return
			}
			if len(diags) > 0 {
				t.Fatalf("unexpected diagnostics %q", diags)
			}
			if sel.unprofiled != tc.wantUnprofiled || sel.rank != tc.wantRank {
				t.Errorf("unprofiled %v rank %q, want %v %q", sel.unprofiled, sel.rank, tc.wantUnprofiled, tc.wantRank)
			}
			if want := (output.RankVariables{Rank: tc.rv, Size: tc.sv}); sel.vars != want {
				t.Errorf("variables %+v, want %+v", sel.vars, want)
			}
		})
	}
}

// Both mistakes of one command line are reported together.
func TestCheckMPIRanksReportsEveryDiagnostic(t *testing.T) {
	_, diags := checkMPIRanks(ProfileOptions{ProfileMPIRanks: "3-1", MPIRankVariable: "R"}, func(string) string { return "" })
	if len(diags) != 2 || diags[0] != diagRankVariablesPair || !strings.Contains(diags[1], "start > end") {
		t.Errorf("diagnostics %q, want the pair rule and the bad range", diags)
	}
}

// FuzzParseRankList: --profile-mpi-ranks never panics; what it accepts is one ordered range per
// comma-separated part, and every rank it names is matched.
func FuzzParseRankList(f *testing.F) {
	for _, s := range []string{"0", "0-3,8", " 1 , 2-5", "3-1", "-", ",", "0-99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		list, err := parseRankList(spec)
		if err != nil {
			return
		}
		if len(list) != strings.Count(spec, ",")+1 {
			t.Fatalf("parseRankList(%q) = %v: not one range per part", spec, list)
		}
		for _, r := range list {
			if r.first < 0 || r.first > r.last || !rankListContains(list, r.first) || !rankListContains(list, r.last) {
				t.Fatalf("parseRankList(%q) = %v: range %v", spec, list, r)
			}
		}
	})
}
