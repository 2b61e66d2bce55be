package merge

import (
	"fmt"
	"os"
	"sync/atomic"

	"github.com/gorocprof/gorocprof/internal/progress"
)

// readProgress is the merge's progress line: the bytes of its results.json inputs read so far, of
// the reads each takes: the heads, which check the records of an element without the kernel trace
// on the way, and the build; an element with the kernel trace has its records read once more for
// the check. A database's progress is not counted: it is read by SQLite.
type readProgress struct {
	read  atomic.Int64
	total atomic.Int64
	line  *progress.Line
}

// jsonReads is how often the merge reads each results.json at least.
const jsonReads = 2

// start shows the line on req.Stderr, a terminal, unless req.Quiet; every JSON input counts its
// bytes into it.
func (p *readProgress) start(req Request, files []inputFile) {
	for i := range files {
		if files[i].db {
			continue
		}
		files[i].prog = p
		if st, err := os.Stat(files[i].path); err == nil {
			p.total.Add(jsonReads * st.Size())
		}
	}
	if p.total.Load() == 0 || req.Stderr == nil {
		return
	}
	p.line = progress.New(req.Stderr, req.Quiet, p.total.Load(), func() string {
		return fmt.Sprintf("merge: %d of %d MB read (each results.json twice, with the kernel trace 3 times)", p.read.Load()>>20, p.total.Load()>>20)
	})
	p.line.Follow(p.read.Load)
}

// counter is what the lexers count the bytes they read into; nil for none.
func (p *readProgress) counter() *atomic.Int64 {
	if p == nil {
		return nil
	}
	return &p.read
}

// again adds n bytes to read to the total: the records of an element that the check reads apart.
func (p *readProgress) again(n int64) {
	if p == nil {
		return
	}
	p.line.SetTotal(p.total.Add(n))
}

func (p *readProgress) stop() { p.line.Stop() }
