package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// decodeJSON reads one JSON value from data into maps, lists and json.Numbers. encoding/json alone
// keeps the last of two equal keys, and its Decoder stops after the first value; a key given twice
// or text after the document is a mistake the file's author wants to hear about, so the value is
// walked token by token.
func decodeJSON(data []byte) (any, error) {
	d := &jsonWalker{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	d.dec.UseNumber()
	v, err := d.value()
	if errors.Is(err, io.EOF) {
		return nil, placeErrorf(0, "the file is empty (%s)", expectedJobs)
	}
	if err != nil {
		return nil, err
	}
	end := d.next()
	if _, err := d.token(); !errors.Is(err, io.EOF) {
		line, col := d.position(end)
		return nil, &placeError{line: line, col: col, msg: "text after the end of the JSON document (expected the end of the file)"}
	}
	return v, nil
}

type jsonWalker struct {
	data []byte
	dec  *json.Decoder
	last int64 // where the token being read starts
}

// token reads the next token, remembering where it starts: the offsets of the decoder's syntax
// errors inside literals are not positions in the file.
func (d *jsonWalker) token() (json.Token, error) {
	d.last = d.next()
	return d.dec.Token()
}

// position turns a byte offset into a 1-based line and column.
func (d *jsonWalker) position(offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(d.data)))
	before := d.data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	return line, int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
}

// fail words a decoder error with where it happened.
func (d *jsonWalker) fail(err error, open string, openAt int64) error {
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		line, col := d.position(d.last)
		return &placeError{line: line, col: col, msg: strings.TrimPrefix(syntax.Error(), "json: ")}
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		if open == "" {
			return io.EOF // nothing at all: the caller says the file is empty
		}
		line, col := d.position(openAt)
		return placeErrorf(0, "the file ends before the %s opened at line %d column %d is closed", open, line, col)
	}
	return placeErrorf(0, "%v", err)
}

// next is the offset of the token the decoder reads next: InputOffset stops before the separators.
func (d *jsonWalker) next() int64 {
	at := d.dec.InputOffset()
	for at < int64(len(d.data)) && strings.IndexByte(" \t\r\n:,", d.data[at]) >= 0 {
		at++
	}
	return at
}

func (d *jsonWalker) value() (any, error) {
	at := d.next()
	tok, err := d.token()
	if err != nil {
		return nil, d.fail(err, "", at)
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch delim {
	case '{':
		obj := map[string]any{}
		for d.dec.More() {
			keyAt := d.next()
			tok, err := d.token()
			if err != nil {
				return nil, d.fail(err, "object", at)
			}
			key := tok.(string) // the decoder only returns strings in key position
			if _, dup := obj[key]; dup {
				line, col := d.position(keyAt)
				return nil, &placeError{line: line, col: col, msg: fmt.Sprintf("duplicate key %q (each key may appear once in an object)", key)}
			}
			v, err := d.value()
			if errors.Is(err, io.EOF) {
				return nil, d.fail(err, "object", at)
			}
			if err != nil {
				return nil, err
			}
			obj[key] = v
		}
		if _, err := d.token(); err != nil {
			return nil, d.fail(err, "object", at)
		}
		return obj, nil
	default: // '['; a closing delimiter cannot come first, the decoder reports it as a syntax error
		list := []any{}
		for d.dec.More() {
			v, err := d.value()
			if errors.Is(err, io.EOF) {
				return nil, d.fail(err, "list", at)
			}
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		if _, err := d.token(); err != nil {
			return nil, d.fail(err, "list", at)
		}
		return list, nil
	}
}

// decodeYAML reads one YAML document into maps with string keys, lists and scalars. yaml.v3 already
// refuses a key given twice in one mapping; a second document is refused here, as trailing text
// is in JSON.
func decodeYAML(data []byte) (any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc any
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, placeErrorf(0, "the file is empty (%s)", expectedJobs)
		}
		return nil, yamlSyntaxLine(data, yamlError(err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, yamlError(err)
		}
		return nil, placeErrorf(extra.Line, "a second YAML document (expected one document, %s)", strings.TrimPrefix(expectedJobs, "expected "))
	}
	return plainYAML(doc), nil
}

var yamlLine = regexp.MustCompile(`^line (\d+): (.*)$`)

// yamlError words yaml.v3's errors without its "yaml: " prefix, one place per error.
func yamlError(err error) error {
	var typeErr *yaml.TypeError
	msgs := []string{err.Error()}
	if errors.As(err, &typeErr) {
		msgs = typeErr.Errors
	}
	// Only the first problem is reported; the next attempt shows the next one.
	msg := strings.TrimPrefix(strings.TrimSpace(msgs[0]), "yaml: ")
	if strings.HasPrefix(msg, "invalid map key:") {
		// yaml.v3 names the Go type of a key that is itself a list or a mapping.
		return placeErrorf(0, "a key is a list or a mapping (expected a name)")
	}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return placeErrorf(line, "%s", m[2])
	}
	return placeErrorf(0, "%s", msg)
}

// plainYAML turns what yaml.v3 builds into what JSON gives: map[any]any (a mapping with keys that
// are not all strings) into map[string]any, so that every key is checked by name, and a timestamp
// back into its text, since no option is a time (`output_directory: 2024-01-31` is a name).
func plainYAML(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = plainYAML(e)
		}
		return x
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(plainYAML(k))] = plainYAML(e)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = plainYAML(e)
		}
		return x
	case time.Time:
		if x.Location() == time.UTC && x.Equal(x.Truncate(24*time.Hour)) {
			return x.Format(time.DateOnly)
		}
		return x.Format(time.RFC3339Nano)
	}
	return v
}

// yamlSyntaxLine corrects the line of a YAML syntax error: yaml.v3 names the line where the
// enclosing mapping or list began (a mis-indented key on line 3 of a job is reported on line 1), so
// the line is the first one whose text up to it no longer parses; earlier lines parse on their own
// as a prefix of the document. Input files are small: each prefix is parsed once.
func yamlSyntaxLine(data []byte, err error) error {
	var pe *placeError
	if !errors.As(err, &pe) || pe.line == 0 || len(data) > 1<<20 {
		return err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	for n := pe.line; n <= len(lines); n++ {
		var doc yaml.Node
		if yaml.Unmarshal(bytes.Join(lines[:n], nil), &doc) != nil {
			if n > pe.line {
				pe.line = n
			}
			return pe
		}
	}
	return err
}
