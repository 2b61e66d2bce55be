package output

import (
	"strings"
	"testing"
)

func TestDetectWorld(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		custom RankVariables
		want   World
	}{
		{"no launcher", map[string]string{}, RankVariables{}, World{}},
		{"PBS before Slurm", map[string]string{"PBS_NODENUM": "1", "PBS_O_TASKNUM": "2", "SLURM_PROCID": "3", "SLURM_NTASKS": "4"},
			RankVariables{}, World{"1", "2", "PBS_NODENUM", "PBS_O_TASKNUM"}},
		{"Slurm before PMI", map[string]string{"SLURM_PROCID": "3", "SLURM_NTASKS": "4", "PMI_RANK": "5", "PMI_SIZE": "6"},
			RankVariables{}, World{"3", "4", "SLURM_PROCID", "SLURM_NTASKS"}},
		{"PMI before MVAPICH2", map[string]string{"PMI_RANK": "5", "PMI_SIZE": "6", "MV2_COMM_WORLD_RANK": "7", "MV2_COMM_WORLD_SIZE": "8"},
			RankVariables{}, World{"5", "6", "PMI_RANK", "PMI_SIZE"}},
		{"MVAPICH2 before Open MPI", map[string]string{"MV2_COMM_WORLD_RANK": "7", "MV2_COMM_WORLD_SIZE": "8", "OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2"},
			RankVariables{}, World{"7", "8", "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE"}},
		{"Open MPI before MPI_RANKID", map[string]string{"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2", "MPI_RANKID": "3", "MPI_NRANKS": "4"},
			RankVariables{}, World{"1", "2", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}},
		{"MPI_RANKID before MPI_LOCALRANKID", map[string]string{"MPI_RANKID": "3", "MPI_NRANKS": "4", "MPI_LOCALRANKID": "0", "MPI_LOCALNRANKS": "1"},
			RankVariables{}, World{"3", "4", "MPI_RANKID", "MPI_NRANKS"}},
		{"MPI_LOCALRANKID before MPI_RANK", map[string]string{"MPI_LOCALRANKID": "0", "MPI_LOCALNRANKS": "1", "MPI_RANK": "5", "MPI_SIZE": "6"},
			RankVariables{}, World{"0", "1", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"}},
		{"MPI_RANK last", map[string]string{"MPI_RANK": "5", "MPI_SIZE": "6"}, RankVariables{}, World{"5", "6", "MPI_RANK", "MPI_SIZE"}},
		// A rank without its launcher's size is no pair: the next launcher's pair is taken whole.
		{"half a pair is skipped", map[string]string{"SLURM_PROCID": "3", "OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2"},
			RankVariables{}, World{"1", "2", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}},
		{"only halves", map[string]string{"SLURM_PROCID": "3", "PMI_SIZE": "4"}, RankVariables{}, World{}},
		{"blank is unset", map[string]string{"PMI_RANK": " ", "PMI_SIZE": "4", "MPI_RANK": " 2 ", "MPI_SIZE": "3"},
			RankVariables{}, World{"2", "3", "MPI_RANK", "MPI_SIZE"}},
		{"custom variables win", map[string]string{"MY_RANK": "9", "MY_SIZE": "10", "SLURM_PROCID": "3", "SLURM_NTASKS": "4"},
			RankVariables{"MY_RANK", "MY_SIZE"}, World{"9", "10", "MY_RANK", "MY_SIZE"}},
		{"custom variables unset", map[string]string{"SLURM_PROCID": "3", "SLURM_NTASKS": "4"},
			RankVariables{"MY_RANK", "MY_SIZE"}, World{"", "", "MY_RANK", "MY_SIZE"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DetectWorld(func(k string) string { return tc.env[k] }, tc.custom)
			if got != tc.want {
				t.Errorf("DetectWorld(%v, %v) = %+v, want %+v", tc.env, tc.custom, got, tc.want)
			}
		})
	}
}

func TestWorldVariables(t *testing.T) {
	all := WorldVariables(RankVariables{})
	if !strings.HasPrefix(all, "PBS_NODENUM/PBS_O_TASKNUM, SLURM_PROCID/SLURM_NTASKS, PMI_RANK/PMI_SIZE, ") ||
		!strings.HasSuffix(all, "MPI_RANK/MPI_SIZE") {
		t.Errorf("WorldVariables() = %q, want every pair in order", all)
	}
	if got := WorldVariables(RankVariables{"R", "S"}); got != "R/S" {
		t.Errorf("WorldVariables(R, S) = %q, want R/S", got)
	}
}

func TestPathVarsFromEnv(t *testing.T) {
	tests := []struct {
		name                   string
		env                    map[string]string
		custom                 RankVariables
		wantRank, wantSize, wj string
	}{
		{"nothing", map[string]string{}, RankVariables{}, "", "", ""},
		// rocprofv3's %rank% is SLURM_PROCID when set, whatever else says.
		{"SLURM_PROCID over a pair", map[string]string{"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "4", "SLURM_PROCID": "9"},
			RankVariables{}, "9", "4", ""},
		{"SLURM_PROCID over custom", map[string]string{"R": "2", "S": "4", "SLURM_PROCID": "9"}, RankVariables{"R", "S"}, "9", "4", ""},
		{"a pair", map[string]string{"MV2_COMM_WORLD_RANK": "3", "MV2_COMM_WORLD_SIZE": "6", "OMPI_COMM_WORLD_RANK": "5"},
			RankVariables{}, "3", "6", ""},
		{"Slurm", map[string]string{"SLURM_PROCID": "5", "SLURM_NTASKS": "16", "SLURM_JOB_ID": "77"}, RankVariables{}, "5", "16", "77"},
		{"custom", map[string]string{"R": "2", "S": "4", "PMI_RANK": "1", "PMI_SIZE": "8"}, RankVariables{"R", "S"}, "2", "4", ""},
		// Custom names replace the detection even when they are unset (0 and 1 in the path).
		{"custom unset", map[string]string{"PMI_RANK": "1", "PMI_SIZE": "8"}, RankVariables{"R", "S"}, "", "", ""},
		// Without a pair, each variable alone, in the tool library's order (Open MPI before MVAPICH2).
		{"lone rank", map[string]string{"MV2_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_RANK": "2", "MPI_RANK": "4"}, RankVariables{}, "2", "", ""},
		{"lone PBS rank", map[string]string{"PBS_NODENUM": "6", "PMI_RANK": "1"}, RankVariables{}, "6", "", ""},
		{"lone size", map[string]string{"SLURM_NTASKS": "16", "OMPI_COMM_WORLD_SIZE": "4", "MPI_SIZE": "2"}, RankVariables{}, "", "16", ""},
		{"SLURM_NPROCS is not read", map[string]string{"SLURM_NPROCS": "12"}, RankVariables{}, "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v PathVars
			v.FromEnv(func(k string) string { return tc.env[k] }, tc.custom)
			if v.Rank != tc.wantRank || v.Size != tc.wantSize || v.Job != tc.wj {
				t.Errorf("FromEnv(%v, %v) = rank %q size %q job %q; want %q %q %q",
					tc.env, tc.custom, v.Rank, v.Size, v.Job, tc.wantRank, tc.wantSize, tc.wj)
			}
		})
	}
}
