package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/replay"
)

// SweepError reports that some jobs of an input file failed; each one's reason was printed on its
// status line.
type SweepError struct{ Failed, Total int }

func (e *SweepError) Error() string {
	return fmt.Sprintf("%d of %d jobs failed (see the status lines above)", e.Failed, e.Total)
}

// sweepJob is what the sweep tells about one job.
type sweepJob struct {
	source  string
	dir     string
	status  string // ok, failed, not run
	detail  string
	files   int
	elapsed time.Duration
}

// runSweep runs the jobs of an input file in order, each into its own output directory, and prints
// a status line per job and a table at the end, on stderr, so that stdout keeps the application's
// output and the summaries. A failing job does not stop the others unless failFast is set.
//
// SIGINT, SIGTERM or SIGHUP stops the sweep: the job running gets the signal (the launcher forwards it to
// the application, whose records become output as in a single run), no further job starts, and
// gorocprof exits 128+n once the table is printed.
func runSweep(ctx context.Context, f *Factory, jobs []runJob, failFast bool) error {
	separateOutputDirs(jobs)
	out := make([]sweepJob, len(jobs))
	failed := 0
	for i := range jobs {
		out[i] = sweepJob{source: jobs[i].source, dir: jobs[i].req.OutputDir, status: "not run"}
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	var stop *InterruptedError
	for i, j := range jobs {
		select {
		case s := <-sigs:
			stop = &InterruptedError{Signal: s.(syscall.Signal), NotRun: len(jobs) - i}
		default:
		}
		if stop != nil || (failFast && failed > 0) {
			break
		}
		j.req.Stdout, j.req.Stderr = f.IO.Out, f.IO.ErrOut
		start := time.Now()
		res, err := f.Runner(ctx, j.req)
		s := &out[i]
		s.elapsed, s.files = time.Since(start), len(res.Files)
		var reasons []string
		if ending := replay.AppEnding(res.ExitCode, res.Signal); ending != "" {
			reasons = append(reasons, ending)
		}
		if err != nil {
			reasons = append(reasons, strings.ReplaceAll(err.Error(), "\n", "; "))
		}
		if len(reasons) > 0 {
			failed++
			s.status, s.detail = "failed", strings.Join(reasons, ": ")
			fmt.Fprintf(f.IO.ErrOut, "gorocprof: job %d of %d (%s): failed: %s\n", i+1, len(jobs), j.source, s.detail)
			continue
		}
		s.status = "ok"
		if j.req.Unprofiled {
			// Its output directory is nobody's: the job ran the application only.
			s.status, s.dir = "not profiled", "-"
			fmt.Fprintf(f.IO.ErrOut, "gorocprof: job %d of %d (%s): ok, not profiled: MPI rank %s is not in --profile-mpi-ranks (%s)\n",
				i+1, len(jobs), j.source, j.req.Rank, s.elapsed.Round(time.Millisecond))
			continue
		}
		fmt.Fprintf(f.IO.ErrOut, "gorocprof: job %d of %d (%s): ok, %d files in %s (%s)\n",
			i+1, len(jobs), j.source, s.files, s.dir, s.elapsed.Round(time.Millisecond))
	}
	if stop == nil {
		select {
		case s := <-sigs: // during the last job
			stop = &InterruptedError{Signal: s.(syscall.Signal)}
		default:
		}
	}
	if err := writeSweepTable(f.IO.ErrOut, out); err != nil {
		return err
	}
	if stop != nil {
		return stop
	}
	if failed > 0 {
		return &SweepError{Failed: failed, Total: len(jobs)}
	}
	return nil
}

// separateOutputDirs gives every job that shares its output directory with another a job_<n>/
// below it, so that no job overwrites another's files.
func separateOutputDirs(jobs []runJob) {
	count := map[string]int{}
	for _, j := range jobs {
		count[filepath.Clean(j.req.OutputDir)]++
	}
	for i := range jobs {
		if count[filepath.Clean(jobs[i].req.OutputDir)] > 1 {
			jobs[i].req.OutputDir = filepath.Join(jobs[i].req.OutputDir, fmt.Sprintf("job_%d", i+1))
		}
	}
}

func writeSweepTable(w io.Writer, jobs []sweepJob) error {
	fmt.Fprintln(w, "\nGOROCPROF SWEEP")
	t := output.NewTable(w, nil)
	t.Header([]string{"JOB", "SOURCE", "OUTPUT DIRECTORY", "STATUS", "FILES", "TIME"})
	for i, j := range jobs {
		elapsed := "-"
		if j.status != "not run" {
			elapsed = j.elapsed.Round(time.Millisecond).String()
		}
		if err := t.Append([]string{fmt.Sprint(i + 1), j.source, j.dir, j.status, fmt.Sprint(j.files), elapsed}); err != nil {
			return fmt.Errorf("writing the sweep table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("writing the sweep table: %w", err)
	}
	return nil
}
