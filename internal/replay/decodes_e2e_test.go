package replay

import (
	"bytes"
	"context"
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
	if count.dispatches == 0 || !bytes.Contains(stdout.Bytes(), []byte("SQ_WAVES")) {
		t.Fatalf("%d dispatches seen, summary:\n%s", count.dispatches, stdout.String())
	}
	if decoded != count.lines {
		t.Errorf("decoded %d record lines for %d lines in the record files (%d logical dispatches of 3 passes): want each once",
			decoded, count.lines, count.dispatches)
	}
}
