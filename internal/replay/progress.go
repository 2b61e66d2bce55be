package replay

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/gorocprof/gorocprof/internal/boundedread"
	"github.com/gorocprof/gorocprof/internal/contract"
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
	f, ok := stderr.(*os.File)
	if !ok || !(isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
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
