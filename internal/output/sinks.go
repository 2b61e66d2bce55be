package output

import (
	"errors"
	"io"
	"slices"
)

// A fileSink is an -f format that a Sink of its own writes into one file of the prefix: the file
// is created, synced and renamed with the others, the sink sees every process of the prefix.
type fileSink struct {
	format, suffix string
	open           func(w io.Writer, opts Options) Sink
}

// fileSinks are those formats, in the order their files are created.
var fileSinks = []fileSink{
	{"pftrace", "_results.pftrace", newPftraceSink},
}

func isFileSink(format string) bool {
	return slices.ContainsFunc(fileSinks, func(f fileSink) bool { return f.format == format })
}

// openSinks creates the files of the file sinks wanted and their sinks.
func (s *streams) openSinks(want map[string]bool, opts Options) error {
	for _, fs := range fileSinks {
		if want[fs.format] {
			o, err := s.create(fs.suffix)
			if err != nil {
				return err
			}
			s.sinks = append(s.sinks, fs.open(o.w, opts))
		}
	}
	return nil
}

// sinkList hands each call to every sink, stopping at the first failure; End reaches them all.
type sinkList []Sink

func (l sinkList) Begin(p *Process) error {
	for _, s := range l {
		if err := s.Begin(p); err != nil {
			return err
		}
	}
	return nil
}

func (l sinkList) Dispatch(d *Dispatch) error {
	for _, s := range l {
		if err := s.Dispatch(d); err != nil {
			return err
		}
	}
	return nil
}

func (l sinkList) End(failed error) error {
	var errs []error
	for _, s := range l {
		if err := s.End(failed); err != nil && !errors.Is(err, failed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
