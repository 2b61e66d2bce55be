package output

import "strings"

// RankVariables names the environment variables that hold a process's MPI rank and world size
// (--mpi-world-rank-variable, --mpi-world-size-variable). Empty names mean the launchers' own
// variables, found as rocprofv3 finds them (DetectWorld); rocprofv3 takes custom names only as a
// pair, and so does gorocprof's command line.
type RankVariables struct{ Rank, Size string }

// World is a process's place in an MPI or Slurm job: its rank and the job's size, as the variables
// RankVar and SizeVar give them. A zero World means that no launcher said.
type World struct {
	Rank, Size       string
	RankVar, SizeVar string
}

// Found reports whether a launcher (or the custom variables) named this process's rank variable.
func (w World) Found() bool { return w.RankVar != "" }

// worldPairs are the variables rocprofv3 (its get_mpi_rank_and_size) reads, rank and size of one
// launcher together, from the most runtime-specific (PBS, Slurm) to the most generic: the first pair
// with both set gives the rank and the size, so that they never come from two launchers.
var worldPairs = [][2]string{
	{"PBS_NODENUM", "PBS_O_TASKNUM"},
	{"SLURM_PROCID", "SLURM_NTASKS"},
	{"PMI_RANK", "PMI_SIZE"},
	{"MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE"},
	{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
	{"MPI_RANKID", "MPI_NRANKS"},
	{"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
	{"MPI_RANK", "MPI_SIZE"},
}

// DetectWorld finds the rank and size of this process: from the custom variables when custom names
// them (whether set or not: they replace the detection, as in rocprofv3), else from the first of
// worldPairs whose rank and size are both set. Values are as set, surrounding blanks removed.
func DetectWorld(getenv func(string) string, custom RankVariables) World {
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	if custom.Rank != "" || custom.Size != "" {
		return World{Rank: get(custom.Rank), Size: get(custom.Size), RankVar: custom.Rank, SizeVar: custom.Size}
	}
	for _, p := range worldPairs {
		if r, s := get(p[0]), get(p[1]); r != "" && s != "" {
			return World{Rank: r, Size: s, RankVar: p[0], SizeVar: p[1]}
		}
	}
	return World{}
}

// WorldVariables lists the variables DetectWorld reads with custom, as diagnostics name them
// ("PBS_NODENUM/PBS_O_TASKNUM, SLURM_PROCID/SLURM_NTASKS, ...").
func WorldVariables(custom RankVariables) string {
	if custom.Rank != "" || custom.Size != "" {
		return custom.Rank + "/" + custom.Size
	}
	names := make([]string, len(worldPairs))
	for i, p := range worldPairs {
		names[i] = p[0] + "/" + p[1]
	}
	return strings.Join(names, ", ")
}

// Without a pair, rocprofv3's tool library reads each variable alone, the later of its list winning:
// these are those lists in order of precedence.
var (
	loneRankVariables = []string{"PBS_NODENUM", "SLURM_PROCID", "PMI_RANK", "OMPI_COMM_WORLD_RANK",
		"MV2_COMM_WORLD_RANK", "MPI_RANKID", "MPI_LOCALRANKID", "MPI_RANK"}
	loneSizeVariables = []string{"PBS_O_TASKNUM", "SLURM_NTASKS", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE",
		"MV2_COMM_WORLD_SIZE", "MPI_NRANKS", "MPI_LOCALNRANKS", "MPI_SIZE"}
)

// FromEnv fills Rank, Size and Job as rocprofv3's %rank%, %size% and %job% have them: the rank is
// SLURM_PROCID whenever Slurm sets it (rocprofv3's %rank% prefers it to any MPI variable, custom ones
// included), else the detected world's (DetectWorld), else the first set of the rank variables read
// one by one; the size is the detected world's, else the first set of the size variables; the job is
// SLURM_JOB_ID.
func (v *PathVars) FromEnv(getenv func(string) string, custom RankVariables) {
	first := func(names ...string) string {
		for _, n := range names {
			if s := strings.TrimSpace(getenv(n)); s != "" {
				return s
			}
		}
		return ""
	}
	w := DetectWorld(getenv, custom)
	switch {
	case first("SLURM_PROCID") != "":
		v.Rank = first("SLURM_PROCID")
	case w.Found():
		v.Rank = w.Rank
	default:
		v.Rank = first(loneRankVariables...)
	}
	v.Size = w.Size
	if w.SizeVar == "" {
		v.Size = first(loneSizeVariables...)
	}
	v.Job = first("SLURM_JOB_ID")
}
