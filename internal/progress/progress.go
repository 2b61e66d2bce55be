// Package progress draws the one line a long phase shows on a terminal (the application's run, the
// output's writing, a merge): what it has done so far and the time it has taken, redrawn a few
// times a second through mpb. Where the stream is no terminal (a file, a pipe, a test) or the user
// asked for quiet, a Line is nil and costs nothing.
package progress

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// Line is one progress line; the nil Line does nothing.
type Line struct {
	p       *mpb.Progress
	bar     *mpb.Bar
	once    sync.Once
	done    chan struct{} // closed by Stop
	follows sync.WaitGroup
}

// Terminal returns w as the terminal it is, if it is one.
func Terminal(w io.Writer) (*os.File, bool) {
	f, ok := w.(*os.File)
	if !ok || !(isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		return nil, false
	}
	return f, true
}

// New starts a line on w, unless w is no terminal or quiet is set (nil then). text says what the
// phase has done so far; it is called from the drawing goroutine, so what it reads must be safe to
// read from there (atomics). With total > 0 the line is also a bar of SetCurrent's count of total.
func New(w io.Writer, quiet bool, total int64, text func() string) *Line {
	f, ok := Terminal(w)
	if quiet || !ok {
		return nil
	}
	l := &Line{done: make(chan struct{}), p: mpb.New(mpb.WithOutput(f), mpb.WithWidth(24), mpb.WithRefreshRate(200*time.Millisecond))}
	opts := []mpb.BarOption{
		mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return text() })),
		mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO, decor.WC{W: 6})),
	}
	if total > 0 {
		l.bar = l.p.AddBar(total, opts...)
	} else {
		// No bar, the text alone: a count that has no known end (a total mpb never reaches).
		l.bar = l.p.New(1<<62, mpb.NopStyle(), opts...)
	}
	return l
}

// SetCurrent sets the bar's count.
func (l *Line) SetCurrent(n int64) {
	if l != nil {
		l.bar.SetCurrent(n)
	}
}

// SetTotal changes the bar's total, for a phase that learns on the way that it has more to do.
func (l *Line) SetTotal(n int64) {
	if l != nil {
		l.bar.SetTotal(n, false)
	}
}

// Follow moves the bar to current's count a few times a second until Stop.
func (l *Line) Follow(current func() int64) {
	if l == nil {
		return
	}
	l.follows.Add(1)
	go func() {
		defer l.follows.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-l.done:
				return
			case <-t.C:
				l.bar.SetCurrent(current())
			}
		}
	}()
}

// Stop removes the line from the terminal; what follows is printed where it was.
func (l *Line) Stop() {
	if l == nil {
		return
	}
	l.once.Do(func() {
		close(l.done)
		l.follows.Wait()
		l.bar.Abort(true)
		l.p.Wait()
	})
}
