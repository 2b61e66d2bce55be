// Package records reads the per-process record files the tool library writes (docs/record-format.md §3).
package records

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/jsonerr"
)

// MaxLineBytes bounds one record line. A dispatch line carries one value per hardware instance per
// counter, so even wide agents stay far below this; the bound only stops a corrupt file from eating
// all memory.
const MaxLineBytes = 64 << 20

// TypeTruncated is the Type of the pseudo record Decode hands over when the stream ends in an
// incomplete line (the process died in the middle of a write). It is not part of the contract.
const TypeTruncated = "truncated"

// TypeSkipped is the Type of the pseudo record a decoder that skips bad lines (SkipBadLines) hands
// over for a line it could not use; Err says why. It is not part of the contract.
const TypeSkipped = "skipped"

// Record is one decoded line. Exactly one payload pointer is set, chosen by Type; a record of a type
// this reader does not know (a newer tool's optional addition) has none, and a TypeTruncated record
// has none either.
type Record struct {
	Type     string
	Line     int // 1-based line number in the file
	Header   *contract.Header
	Agent    *contract.Agent
	Kernel   *contract.Kernel
	Dispatch *contract.Dispatch
	Decline  *contract.Decline
	Message  *contract.Message // warning and fatal
	End      *contract.End
	Stopped  *contract.Stopped
	Trace    *contract.Trace // api, marker and copy lines
	Err      error           // TypeSkipped: why the line was skipped
	// Recovered is set on a record that began in the middle of a line whose start was cut short
	// (a write torn by a full disk, followed by the next write): the torn start was dropped.
	Recovered bool
}

// Decoder reads records one at a time so that a caller can merge very large files without holding
// them. It checks what the contract requires of the stream itself: a header first, a known version,
// well-formed lines except possibly the last.
type Decoder struct {
	br         *bufio.Reader
	buf        []byte
	line       int
	sawHeader  bool
	done       bool
	scanner    dispatchScanner
	traces     traceScanner
	reuse      bool
	skipBad    bool
	headerless bool              // records were handed out before any header (SkipBadLines)
	disp       contract.Dispatch // the dispatch handed out last, when reuse is set
	trace      contract.Trace    // the trace line handed out last, when reuse is set
}

// SkipBadLines makes Next hand out a TypeSkipped record for a complete line it cannot use (not
// JSON, a wrong field, a second header, too long) and go on, instead of failing: one damaged line
// then costs that line only. A damaged line that holds the start of a later record (a torn write
// followed by the next one) yields that record, marked Recovered. A damaged header costs its line
// too: the records after it are handed out (Headerless); only a header of an unknown contract
// version (ErrVersion) ends the file.
func (d *Decoder) SkipBadLines() { d.skipBad = true }

// ReuseDispatches makes Next hand out the same Dispatch (and counter storage) for every dispatch
// record, and the same Trace for every trace line, overwritten by the next call: for readers that
// use a record before asking for the next one, it saves a few allocations per line.
func (d *Decoder) ReuseDispatches() { d.reuse = true }

// decodedLines counts the lines every Decoder of this process has decoded.
var decodedLines atomic.Uint64

// Decoded returns how many record lines the decoders of this process have decoded so far: the
// front end decodes each line of a record file once, which tests check by counting.
func Decoded() uint64 { return decodedLines.Load() }

// NewDecoder returns a decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{br: bufio.NewReaderSize(r, 1<<20)}
}

// Next returns the next record, or io.EOF after the last one. Errors name the line number.
func (d *Decoder) Next() (Record, error) {
	for {
		var raw []byte
		var complete bool
		err := io.EOF
		if !d.done {
			raw, complete, err = d.readLine()
		}
		if errors.Is(err, io.EOF) {
			d.done = true
			if !d.sawHeader && !d.headerless {
				return Record{}, fmt.Errorf("%w: the file has no complete header line", ErrNoHeader)
			}
			return Record{}, io.EOF
		}
		if errors.Is(err, errLineTooLong) && d.skipBad {
			d.line++
			return Record{Type: TypeSkipped, Line: d.line, Err: err}, nil
		}
		if err != nil {
			return Record{}, fmt.Errorf("line %d: %w", d.line+1, err)
		}
		d.line++
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		decodedLines.Add(1)
		rec, perr := d.parseLine(raw)
		if !complete && perr != nil {
			// The writer puts a whole dispatch in one write(2); a line without its newline that does
			// not parse is that write cut short. A last line that parses lost only its newline.
			d.done = true
			return Record{Type: TypeTruncated, Line: d.line}, nil
		}
		if perr == nil {
			perr = checkBounds(rec)
		}
		if perr == nil {
			perr = d.checkOrder(rec)
		}
		if errors.Is(perr, ErrVersion) {
			return Record{}, fmt.Errorf("line %d: %w", d.line, perr)
		}
		if perr != nil && d.skipBad {
			return d.recover(raw, perr), nil
		}
		if perr != nil {
			return Record{}, fmt.Errorf("line %d: %w", d.line, perr)
		}
		rec.Line = d.line
		return rec, nil
	}
}

// recover handles a complete line that failed with err. A write cut short leaves a line without
// its newline, and the next write continues it: the line then ends in a whole record, which starts
// at the last `{"t":"` (an unescaped quote cannot occur inside a JSON string, so that text only
// begins a record). Everything before it is lost; the record itself is kept when it parses.
func (d *Decoder) recover(raw []byte, err error) Record {
	skipped := Record{Type: TypeSkipped, Line: d.line, Err: err}
	at := bytes.LastIndex(raw, typePrefix)
	if at <= 0 {
		return skipped
	}
	rec, perr := d.parseLine(raw[at:])
	if perr == nil {
		perr = checkBounds(rec)
	}
	if perr == nil {
		perr = d.checkOrder(rec)
	}
	if perr != nil {
		return skipped
	}
	rec.Line, rec.Recovered = d.line, true
	return rec
}

func (d *Decoder) checkOrder(rec Record) error {
	if rec.Type == contract.RecHeader {
		if d.sawHeader {
			return errors.New("a second header record")
		}
		if rec.Header.Version != contract.Version {
			return fmt.Errorf("%w: record file has contract version %d; this gorocprof reads version %d",
				ErrVersion, rec.Header.Version, contract.Version)
		}
		d.sawHeader = true
		return nil
	}
	if !d.sawHeader && !d.skipBad {
		return fmt.Errorf("%w: the first record is %q", ErrNoHeader, rec.Type)
	}
	if !d.sawHeader {
		d.headerless = true
	}
	return nil
}

// Headerless reports whether records were handed out before any header (SkipBadLines: the header
// line was damaged); the file's name then says whose they are.
func (d *Decoder) Headerless() bool { return d.headerless }

// MaxPasses bounds a dispatch's pass count, as the plans a tool runs have at most that
// many passes: a larger number is a damaged line, refused before it sizes anything.
const MaxPasses = 4096

// ErrVersion marks a header of a contract version this reader does not know: its file's lines may
// mean something else, so none of them is read.
var ErrVersion = errors.New("unknown contract version")

// checkBounds refuses numbers of a record that would size the reader's memory beyond any real run.
func checkBounds(rec Record) error {
	if rec.Type != contract.RecDispatch {
		return nil
	}
	if d := rec.Dispatch; d.Passes > MaxPasses {
		return fmt.Errorf("dispatch %d: %d passes: a dispatch has at most %d passes", d.DispatchID, d.Passes, MaxPasses)
	}
	return nil
}

// readLine returns the next line without its newline; complete is false for a final line that has
// no newline. The returned slice is valid until the next call.
func (d *Decoder) readLine() (line []byte, complete bool, err error) {
	d.buf = d.buf[:0]
	for {
		chunk, err := d.br.ReadSlice('\n')
		if len(d.buf)+len(chunk) > MaxLineBytes {
			return nil, false, d.discardLine(err)
		}
		switch {
		case err == nil:
			if len(d.buf) == 0 {
				return chunk[:len(chunk)-1], true, nil
			}
			d.buf = append(d.buf, chunk...)
			return d.buf[:len(d.buf)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			d.buf = append(d.buf, chunk...)
		case errors.Is(err, io.EOF):
			d.buf = append(d.buf, chunk...)
			if len(d.buf) == 0 {
				return nil, false, io.EOF
			}
			return d.buf, false, nil
		default:
			return nil, false, err
		}
	}
}

// ErrNoHeader says a record file does not begin with a header line: an empty file belongs to a
// process that was killed between creating it and writing the header.
var ErrNoHeader = errors.New("missing header")

var errLineTooLong = fmt.Errorf("line longer than %d bytes", MaxLineBytes)

// discardLine skips the rest of an overlong line, whose last chunk ReadSlice returned with err, so
// that reading can go on at the next line.
func (d *Decoder) discardLine(err error) error {
	d.buf = d.buf[:0]
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = d.br.ReadSlice('\n')
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if errors.Is(err, io.EOF) {
		d.done = true
	}
	return errLineTooLong
}

// Decode calls fn for every record of r in file order, including a final TypeTruncated record when
// the stream ends in an incomplete line. It stops at the first error, from the stream or from fn.
func Decode(r io.Reader, fn func(Record) error) error {
	d := NewDecoder(r)
	for {
		rec, err := d.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

func (d *Decoder) parseLine(raw []byte) (Record, error) {
	if bytes.HasPrefix(raw, dispatchPrefix) {
		disp := &d.disp
		if !d.reuse {
			disp = new(contract.Dispatch)
		}
		if d.scanner.scan(raw, disp, d.reuse) {
			return Record{Type: contract.RecDispatch, Dispatch: disp}, nil
		}
	}
	if prefix, kind := tracePrefix(raw); prefix != nil {
		t := &d.trace
		if !d.reuse {
			t = new(contract.Trace)
		}
		if d.traces.scan(raw, prefix, kind, t) {
			return Record{Type: kind, Trace: t}, nil
		}
	}
	return parseLine(raw)
}

func parseLine(raw []byte) (Record, error) {
	t, err := recordType(raw)
	if err != nil {
		return Record{}, err
	}
	rec := Record{Type: t}
	var target any
	switch t {
	case contract.RecHeader:
		rec.Header = new(contract.Header)
		target = rec.Header
	case contract.RecAgent:
		rec.Agent = new(contract.Agent)
		target = rec.Agent
	case contract.RecKernel:
		rec.Kernel = new(contract.Kernel)
		target = rec.Kernel
	case contract.RecDispatch:
		rec.Dispatch = new(contract.Dispatch)
		target = rec.Dispatch
	case contract.RecDecline:
		rec.Decline = new(contract.Decline)
		target = rec.Decline
	case contract.RecWarning, contract.RecFatal:
		rec.Message = new(contract.Message)
		target = rec.Message
	case contract.RecEnd:
		rec.End = new(contract.End)
		target = rec.End
	case contract.RecStopped:
		rec.Stopped = new(contract.Stopped)
		target = rec.Stopped
	case contract.RecAPI, contract.RecMarker, contract.RecCopy:
		rec.Trace = &contract.Trace{Kind: t}
		target = rec.Trace
	default:
		// Unknown types are optional additions of a newer tool; the line must still be valid JSON.
		if !json.Valid(raw) {
			return Record{}, fmt.Errorf("record %q is not valid JSON", t)
		}
		return rec, nil
	}
	if err := json.Unmarshal(raw, target); err != nil {
		return Record{}, fmt.Errorf("%s record: %w", t, jsonerr.Describe(err))
	}
	return rec, nil
}

var typePrefix = []byte(`{"t":"`)

// recordType reads the "t" field; the tool always writes it first, which the fast path uses.
func recordType(raw []byte) (string, error) {
	if rest, ok := bytes.CutPrefix(raw, typePrefix); ok {
		// The full decode that follows checks the rest of the line.
		if end := bytes.IndexByte(rest, '"'); end > 0 && bytes.IndexByte(rest[:end], '\\') < 0 {
			return string(rest[:end]), nil
		}
	}
	var probe struct {
		T *string `json:"t"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return "", jsonerr.Describe(err)
	}
	if probe.T == nil || *probe.T == "" {
		return "", errors.New(`record has no "t" field`)
	}
	return *probe.T, nil
}
