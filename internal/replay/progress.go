package replay

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/gorocprof/gorocprof/internal/boundedread"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output"
	progressline "github.com/gorocprof/gorocprof/internal/progress"
)

// progress shows an application replay on a terminal: pass k of N, dispatches profiled so far in
// the running pass, time elapsed. Where stderr is not a terminal (a file, a pipe, a test) it shows
// nothing and costs nothing.
type progress interface {
	startPass(pass int, runDir string)
	endPass(ok bool)
	finish()
}

func newProgress(stderr io.Writer, passes int) progress {
	f, ok := progressline.Terminal(stderr)
	if !ok {
		return noProgress{}
	}
	return newBarProgress(f, passes)
}

type noProgress struct{}

func (noProgress) startPass(int, string) {}
func (noProgress) endPass(bool)          {}
func (noProgress) finish()               {}

// barProgress draws one bar over the passes. The dispatch count comes from the record files the
// tool appends to, read incrementally while the pass runs.
type barProgress struct {
	p       *mpb.Progress
	bar     *mpb.Bar
	passes  int
	current atomic.Int64
	counted atomic.Int64
	stop    chan struct{}
	wg      sync.WaitGroup
	done    sync.Once
}

func newBarProgress(w io.Writer, passes int) *barProgress {
	b := &barProgress{passes: passes, p: mpb.New(mpb.WithOutput(w), mpb.WithWidth(32), mpb.WithRefreshRate(200*time.Millisecond))}
	b.bar = b.p.AddBar(int64(passes),
		mpb.PrependDecorators(decor.Any(func(decor.Statistics) string {
			return fmt.Sprintf("application replay: pass %d of %d", b.current.Load(), b.passes)
		})),
		mpb.AppendDecorators(
			decor.Any(func(decor.Statistics) string { return fmt.Sprintf(" %d dispatches", b.counted.Load()) }),
			decor.Elapsed(decor.ET_STYLE_GO, decor.WC{W: 6}),
		),
	)
	return b
}

func (b *barProgress) startPass(pass int, runDir string) {
	b.current.Store(int64(pass + 1))
	b.counted.Store(0)
	b.stop = make(chan struct{})
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		c := dispatchCounter{dir: filepath.Join(runDir, contract.RecordsDir), offsets: map[string]int64{}}
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				b.counted.Store(c.count())
				return
			case <-t.C:
				b.counted.Store(c.count())
			}
		}
	}()
}

func (b *barProgress) endPass(ok bool) {
	close(b.stop)
	b.wg.Wait()
	if !ok {
		b.bar.Abort(false)
		return
	}
	b.bar.Increment()
}

func (b *barProgress) finish() {
	b.done.Do(func() {
		if !b.bar.Completed() && !b.bar.Aborted() {
			b.bar.Abort(false)
		}
		b.p.Wait()
	})
}

// dispatchCounter counts the dispatch lines appended to a run's record files since it last looked.
type dispatchCounter struct {
	dir     string
	offsets map[string]int64
	partial map[string][]byte
	total   int64
}

var dispatchPrefix = []byte(`{"t":"dispatch"`)

func (c *dispatchCounter) count() int64 {
	paths, _ := filepath.Glob(filepath.Join(c.dir, "*.ndjson"))
	if c.partial == nil {
		c.partial = map[string][]byte{}
	}
	for _, path := range paths {
		f, err := boundedread.Open(path)
		if err != nil {
			continue
		}
		if _, err := f.Seek(c.offsets[path], io.SeekStart); err == nil {
			data, _ := io.ReadAll(f)
			c.offsets[path] += int64(len(data))
			data = append(c.partial[path], data...)
			for {
				nl := bytes.IndexByte(data, '\n')
				if nl < 0 {
					break
				}
				// Passes of one dispatch are consecutive lines; count the pass lines, as they are what
				// was measured.
				if bytes.HasPrefix(data[:nl], dispatchPrefix) {
					c.total++
				}
				data = data[nl+1:]
			}
			c.partial[path] = bytes.Clone(data)
		}
		f.Close()
	}
	return c.total
}

// runLine shows, while the application runs (run of what, its records going to runDir), how many
// dispatch passes the tool has recorded; passes is the most passes a dispatch takes (kernel replay)
// or 1. stop removes it.
func runLine(stderr io.Writer, quiet bool, what string, runDir string, passes int) (stop func()) {
	if _, ok := progressTerminal(stderr); !ok || quiet {
		return func() {}
	}
	var counted atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c := dispatchCounter{dir: filepath.Join(runDir, contract.RecordsDir), offsets: map[string]int64{}}
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				counted.Store(c.count())
			}
		}
	}()
	line := progressline.New(stderr, quiet, 0, func() string {
		n := counted.Load()
		if passes > 1 {
			return fmt.Sprintf("%s: %d dispatches seen, %d passes replayed (%d per dispatch)", what, n/int64(passes), n, passes)
		}
		return fmt.Sprintf("%s: %d dispatches seen", what, n)
	})
	return func() {
		close(done)
		wg.Wait()
		line.Stop()
	}
}

// outputLine shows the output being written: logical dispatches through the sinks of the total.
type outputLine struct {
	line    *progressline.Line
	written atomic.Int64
}

func newOutputLine(stderr io.Writer, quiet bool, total int64) *outputLine {
	o := &outputLine{}
	o.line = progressline.New(stderr, quiet, total, func() string {
		return fmt.Sprintf("writing the output: %d of %d dispatches", o.written.Load(), total)
	})
	return o
}

func (o *outputLine) Begin(*output.Process) error { return nil }
func (o *outputLine) End(failed error) error      { return failed }
func (o *outputLine) Dispatch(*output.Dispatch) error {
	o.line.SetCurrent(o.written.Add(1))
	return nil
}

var progressTerminal = progressline.Terminal
