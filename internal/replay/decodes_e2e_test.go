package replay

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
)

// lineCounter is a sink that counts the record lines of the processes it sees: every record the
// process keeps (header, agents, kernels, declines, messages, end) and every dispatch line.
type lineCounter struct {
	lines, dispatches uint64
}

func (c *lineCounter) Begin(p *output.Process) error {
	c.lines += 1 + uint64(len(p.Agents)+len(p.Kernels)+len(p.Declines)+len(p.Warnings)+len(p.Fatals))
	if p.End != nil {
		c.lines++
	}
	return nil
}

func (c *lineCounter) Dispatch(d *output.Dispatch) error {
	c.lines += uint64(len(d.Passes))
	c.dispatches++
	return nil
}

func (c *lineCounter) End(failed error) error { return failed }

// TestEachRecordDecodedOnce counts the record lines the decoder decodes over a whole kernel-replay
// run (files in both formats with the kernel trace, the summary and one more sink): each line of the
// record file exactly once, however many sinks read the dispatches.
func TestEachRecordDecodedOnce(t *testing.T) {
	root := needBuiltTool(t)
	groups, err := counters.ParseGroups([]string{"SQ_WAVES SQ_INSTS_VALU", "SQ_WAVES SQ_INSTS_SALU", "GRBM_GUI_ACTIVE"})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	count := &lineCounter{}
	before := records.Decoded()
	res, err := Run(context.Background(), Request{
		Backend: "auto", Groups: groups, Mode: contract.ModeKernel, KernelTrace: true,
		OutputDir: t.TempDir(), OutputFile: "run", Formats: []string{"json", "csv"},
		App: filepath.Join(root, "bin", "sim-demo"), Stdout: &stdout, Stderr: &stderr,
		sinks: []output.Sink{count},
	})
	decoded := records.Decoded() - before
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run: exit %d, err %v\nstderr:\n%s", res.ExitCode, err, stderr.String())
	}
	if count.dispatches == 0 || !bytes.Contains(stderr.Bytes(), []byte("SQ_WAVES")) {
		t.Fatalf("%d dispatches seen, summary:\n%s", count.dispatches, stderr.String())
	}
	if decoded != count.lines {
		t.Errorf("decoded %d record lines for %d lines in the record files (%d logical dispatches of 3 passes): want each once",
			decoded, count.lines, count.dispatches)
	}
}

// TestMergeDecodesNothing counts the decodes of an application replay's tail: each pass run's record
// file is decoded once when it is read (for its own pass's output), and merging the runs and
// writing every file and the summary of the merged process decode nothing more.
func TestMergeDecodesNothing(t *testing.T) {
	a, b := fxKernels[0], fxKernels[1]
	var dirs []string
	lines := uint64(0)
	for pass := 0; pass < 3; pass++ {
		dir := t.TempDir()
		writeFixtureRun(t, dir, pass, 3, fxProc{pid: int64(10 + pass), dispatches: seq(a, 1, b, 1, a, 1, b, 2)},
			fxProc{pid: int64(20 + pass), init: 5, dispatches: seq(b, 4)})
		dirs = append(dirs, dir)
		paths, _ := filepath.Glob(filepath.Join(dir, contract.RecordsDir, "*.ndjson"))
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			lines += uint64(bytes.Count(data, []byte("\n")))
		}
	}
	before := records.Decoded()
	merged, _, err := mergeDirs(t, dirs)
	if err != nil || len(merged) != 2 {
		t.Fatalf("merge: %v, %d processes", err, len(merged))
	}
	if n := records.Decoded() - before; n != lines {
		t.Errorf("reading and merging the runs decoded %d lines of their %d", n, lines)
	}
	before = records.Decoded()
	summary := output.NewSummary(output.SummaryNames{})
	for _, p := range merged {
		files := output.NewFiles(context.Background(), output.Options{Dir: t.TempDir(), File: "m", Formats: []string{"json", "csv"}, KernelTrace: true})
		if err := output.Stream(p, fixtureCounters{}, files, summary); err != nil {
			t.Fatal(err)
		}
		if _, err := files.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := summary.Print(io.Discard); err != nil {
		t.Fatal(err)
	}
	if n := records.Decoded() - before; n != 0 {
		t.Errorf("writing the merged processes decoded %d lines, want none", n)
	}
}
