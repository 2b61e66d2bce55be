package merge

import (
	"fmt"
	"os"
	"sync/atomic"

	"github.com/gorocprof/gorocprof/internal/progress"
)

// readProgress is the merge's progress line: the bytes of its results.json inputs read so far, of
// the three reads each takes (the heads, the check, the build). A database's progress is not
// counted: it is read by SQLite.
type readProgress struct {
	read atomic.Int64
	line *progress.Line
}

// jsonReads is how often the merge reads each results.json.
const jsonReads = 3

// start shows the line on req.Stderr, a terminal, unless req.Quiet; every JSON input counts its
// bytes into it.
func (p *readProgress) start(req Request, files []inputFile) {
	var total int64
	for i := range files {
		if files[i].db {
			continue
		}
		files[i].read = &p.read
		if st, err := os.Stat(files[i].path); err == nil {
			total += jsonReads * st.Size()
		}
	}
	if total == 0 || req.Stderr == nil {
		return
	}
	p.line = progress.New(req.Stderr, req.Quiet, total, func() string {
		return fmt.Sprintf("merge: %d of %d MB read (each results.json %d times)", p.read.Load()>>20, total>>20, jsonReads)
	})
	p.line.Follow(p.read.Load)
}

func (p *readProgress) stop() { p.line.Stop() }
