package output

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gorocprof/gorocprof/internal/output/bgwrite"
	"github.com/gorocprof/gorocprof/internal/stats"
)

// outFile is one output file being written under a temporary name.
type outFile struct {
	final string // its name in the location
	tmp   string // the name it is written under
	f     *os.File
	bg    *bgwrite.Writer // nil for the database, which SQLite writes through a handle of its own
	w     *bufio.Writer   // bg's buffer
}

// streams are the files of one prefix, in the order their paths are reported, and the state they
// keep from one process to the next.
type streams struct {
	loc        *location
	base       string // the prefix's file name part
	wrap       func(string, io.Writer) io.Writer
	files      []*outFile
	results    *outFile
	agentInfo  *outFile
	counterCSV *outFile
	traceCSV   *outFile
	trace      *traceSpool     // the current process's kernel dispatch records
	agentRows  map[string]bool // agent_info.csv rows written, so that processes sharing an agent list it once
	rocpd      bool            // -f rocpd: the first process creates db, the others join it
	db         *rocpdSink
	sinks      sinkList // the formats of fileSinks
	// --stats: durations by kernel name and of the whole kernel domain, over all processes
	kernelStats, domainStats *stats.Table
}

// open creates the files of the formats wanted and writes what comes before the first process.
func (s *streams) open(want map[string]bool, kernelTrace, counters bool) error {
	var err error
	s.rocpd = want["rocpd"]
	if want["json"] {
		if s.results, err = s.create("_results.json"); err != nil {
			return err
		}
		s.results.w.WriteString(`{"rocprofiler-sdk-tool":[`)
	}
	if !want["csv"] {
		return nil
	}
	if s.agentInfo, err = s.create("_agent_info.csv"); err != nil {
		return err
	}
	writeHeader(s.agentInfo.w, agentInfoColumns)
	if counters {
		if s.counterCSV, err = s.create("_counter_collection.csv"); err != nil {
			return err
		}
		writeHeader(s.counterCSV.w, counterCollectionColumns)
	}
	if kernelTrace {
		if s.traceCSV, err = s.create("_kernel_trace.csv"); err != nil {
			return err
		}
		writeHeader(s.traceCSV.w, kernelTraceColumns)
	}
	return nil
}

func (s *streams) create(suffix string) (*outFile, error) {
	final := s.base + suffix
	f, tmp, err := s.loc.createTemp(final)
	if err != nil {
		return nil, err
	}
	var w io.Writer = finalName{f, filepath.Join(s.loc.path, final)}
	if s.wrap != nil {
		w = s.wrap(final, f)
	}
	bg := bgwrite.New(w)
	o := &outFile{final: final, tmp: tmp, f: f, bg: bg, w: bg.Writer}
	s.files = append(s.files, o)
	return o, nil
}

// writeStats writes kernel_stats.csv and domain_stats.csv.
func (s *streams) writeStats() error {
	for _, f := range []struct {
		suffix string
		t      *stats.Table
	}{{"_kernel_stats.csv", s.kernelStats}, {"_domain_stats.csv", s.domainStats}} {
		o, err := s.create(f.suffix)
		if err != nil {
			return err
		}
		if err := f.t.WriteCSV(o.w); err != nil {
			return err
		}
	}
	return nil
}

// finalName writes to a temporary file and names the file it will become in its errors, which is
// the file users asked for.
type finalName struct {
	f    *os.File
	name string
}

func (w finalName) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = w.name
	}
	return n, err
}

// finish ends every file and makes its bytes durable; the first failure names its file. The
// fsync comes before the rename on purpose: a rename can reach the disk before the data it names
// (ext4 and XFS write data lazily), and a crash then would leave the final name on an empty or
// partial file, where without the sync the previous output would have been lost for nothing.
func (s *streams) finish() error {
	if s.results != nil {
		s.results.w.WriteString("]}\n")
	}
	if s.db != nil {
		err := s.db.w.Close()
		s.db = nil
		if err != nil {
			return err
		}
	}
	for _, o := range s.files {
		var err error
		if o.bg != nil {
			err = o.bg.Close()
		}
		if err == nil {
			err = o.f.Sync()
		}
		if cerr := o.f.Close(); err == nil {
			err = cerr
		}
		o.f = nil
		if err != nil {
			return fmt.Errorf("writing %s: %w", filepath.Join(s.loc.path, o.final), err)
		}
	}
	return nil
}

// commit renames every finished file into place and returns the paths placed. A rename that
// fails stops there: the files placed are complete, the others keep their previous content.
func (s *streams) commit() ([]string, error) {
	var paths []string
	for len(s.files) > 0 {
		o := s.files[0]
		if err := s.loc.place(o.tmp, o.final); err != nil {
			return paths, err
		}
		s.files = s.files[1:]
		paths = append(paths, filepath.Join(s.loc.path, o.final))
	}
	return paths, s.loc.syncDir()
}

// abort removes the temporary files not placed, after a failure; after commit it has nothing to do.
func (s *streams) abort() {
	if s.db != nil {
		s.db.w.Abort()
		s.db = nil
	}
	for _, o := range s.files {
		if o.f != nil {
			if o.bg != nil {
				_ = o.bg.Close()
			}
			_ = o.f.Close()
		}
		s.loc.remove(o.tmp)
	}
	s.files = nil
	if s.trace != nil {
		s.trace.close()
	}
}

// WriteFile writes data as the file path the way the output files are written: under a
// temporary name in its directory, which must exist and pass the checks of an output directory,
// synced and renamed into place, so that a failure leaves what path held before.
func WriteFile(path string, data []byte) error {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	loc := &location{root: root, path: filepath.Clean(dir), uid: os.Geteuid()}
	defer loc.close()
	if err := loc.check(); err != nil {
		return err
	}
	f, tmp, err := loc.createTemp(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		loc.remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := loc.place(tmp, name); err != nil {
		loc.remove(tmp)
		return err
	}
	return loc.syncDir()
}
