package merge

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gorocprof/gorocprof/internal/boundedread"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/jsonerr"
	"github.com/gorocprof/gorocprof/internal/output"
)

// A results.json is read twice, both times as a stream: scanJSON takes each element's head and
// notes where its two record arrays begin; jsonSource.each reads those arrays side by side (the
// counter records and, with the kernel trace, the kernel dispatch records, both in dispatch and
// pass order) and joins them into the passes of the records.

// jsonSource is where one element's record arrays begin in its file: the offset just after the
// key "counter_collection", "kernel_dispatch" or "gorocprof_replay_kernel_dispatch" (the passes
// after a dispatch's first); -1 when the element has none.
type jsonSource struct {
	countersAt, traceAt, replaysAt int64
}

type handleJSON struct {
	Handle uint64 `json:"handle"`
}

type counterObject struct {
	AgentID      handleJSON `json:"agent_id"`
	ID           handleJSON `json:"id"`
	IsDerived    int        `json:"is_derived"`
	Name         string     `json:"name"`
	Description  string     `json:"description"`
	Block        string     `json:"block"`
	Expression   string     `json:"expression"`
	DimensionIDs []int      `json:"dimension_ids"`
}

type stringsObject struct {
	BufferRecords []struct {
		Kind string `json:"kind"`
	} `json:"buffer_records"`
	Counters struct {
		DimensionIDs []struct {
			ID           int    `json:"id"`
			InstanceSize int    `json:"instance_size"`
			Name         string `json:"name"`
		} `json:"dimension_ids"`
	} `json:"counters"`
}

// scanJSON reads the head of every element of a results.json.
func scanJSON(path string) ([]*head, error) {
	f, err := boundedread.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<16))
	if err := expectDelim(dec, '{'); err != nil {
		return nil, notResults(err)
	}
	var heads []*head
	found := false
	seen := map[string]bool{}
	for dec.More() {
		key, err := keyToken(dec)
		if err != nil {
			return nil, notResults(err)
		}
		if seen[key] {
			return nil, fmt.Errorf("key %q given twice at the top of the file", key)
		}
		seen[key] = true
		if key != "rocprofiler-sdk-tool" {
			if err := skipValue(dec); err != nil {
				return nil, err
			}
			continue
		}
		found = true
		if err := expectDelim(dec, '['); err != nil {
			return nil, err
		}
		for dec.More() {
			h, err := scanElement(dec, path)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", len(heads), err)
			}
			heads = append(heads, h)
		}
		if err := expectDelim(dec, ']'); err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, errors.New(`not a results.json: it has no "rocprofiler-sdk-tool" array`)
	}
	if err := expectEnd(dec); err != nil {
		return nil, err
	}
	return heads, nil
}

// expectEnd reads the object's closing brace and refuses anything but white space after it, as -i
// refuses trailing text: a second document or a torn concatenation is not one results.json.
func expectEnd(dec *json.Decoder) error {
	if err := expectDelim(dec, '}'); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("text after the end of the results.json object (at byte %d)", dec.InputOffset())
	}
	return nil
}

// decodeStrict decodes the next value into v, refusing a key given twice in any of its objects and
// wording a type mismatch in JSON's terms (the element's head objects: small beside its records).
func decodeStrict(dec *json.Decoder, v any) error {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	if err := jsonerr.CheckKeys(raw); err != nil {
		return err
	}
	return jsonerr.Describe(json.Unmarshal(raw, v))
}

func notResults(err error) error {
	return fmt.Errorf(`not a results.json (a JSON object {"rocprofiler-sdk-tool":[...]}): %w`, err)
}

// scanElement reads one element: its head decoded, its record arrays skipped and their offsets
// kept. The head (metadata, agents, counters, strings, kernel symbols) comes before the records, as
// gorocprof writes it.
func scanElement(dec *json.Decoder, path string) (*head, error) {
	h := &head{input: path, counters: map[uint64]inCounter{}}
	src := &jsonSource{countersAt: -1, traceAt: -1, replaysAt: -1}
	h.src = src
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	var md *metadata
	var cfg configObject
	var cobjs []counterObject
	var strs stringsObject
	var kernels, agents []json.RawMessage
	records := false
	seen := map[string]bool{}
	for dec.More() {
		key, err := keyToken(dec)
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, fmt.Errorf("key %q given twice", key)
		}
		seen[key] = true
		var derr error
		switch key {
		case "metadata":
			var raw json.RawMessage
			if derr = dec.Decode(&raw); derr == nil {
				derr = jsonerr.CheckKeys(raw)
			}
			if derr == nil {
				md = &metadata{}
				derr = jsonerr.Describe(json.Unmarshal(raw, md))
			}
			if derr == nil {
				derr = jsonerr.Describe(json.Unmarshal(raw, &cfg))
			}
		case "agents":
			derr = decodeStrict(dec, &agents)
		case "counters":
			derr = decodeStrict(dec, &cobjs)
		case "strings":
			derr = decodeStrict(dec, &strs)
		case "kernel_symbols":
			derr = decodeStrict(dec, &kernels)
		case "callback_records", "buffer_records":
			if !records {
				records = true
				if md == nil {
					return nil, errors.New(`"metadata" must come before the records`)
				}
				if err := h.fill(md, cfg, agents, kernels, cobjs, strs); err != nil {
					return nil, err
				}
			}
			derr = scanRecords(dec, key, src)
		default:
			derr = skipValue(dec)
		}
		if derr != nil {
			return nil, fmt.Errorf("%q: %w", key, derr)
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, err
	}
	if !records {
		if md == nil {
			return nil, errors.New(`no "metadata"`)
		}
		if err := h.fill(md, cfg, agents, kernels, cobjs, strs); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// configObject is what merge reads of metadata.config: whether the run traced its kernels.
type configObject struct {
	Config struct {
		KernelTrace *bool `json:"kernel_trace"`
	} `json:"config"`
}

// fill sets the head from the element's objects. A file of rocprofv3's layout says in its config
// whether the kernels were traced (strings.buffer_records names every kind there); one written
// before the config was lists the kernel dispatch kind only when it traced them.
func (h *head) fill(md *metadata, cfg configObject, agents, kernels []json.RawMessage, cobjs []counterObject, strs stringsObject) error {
	if err := md.apply(h); err != nil {
		return err
	}
	if kt := cfg.Config.KernelTrace; kt != nil {
		h.kernelTrace = *kt
	} else {
		for _, b := range strs.BufferRecords {
			if b.Kind == "KERNEL_DISPATCH" {
				h.kernelTrace = true
			}
		}
	}
	for i, raw := range agents {
		a, err := output.AgentFromObject(raw)
		if err != nil {
			return fmt.Errorf("agents[%d]: %w", i, err)
		}
		h.agents = append(h.agents, a)
	}
	for i, raw := range kernels {
		k, err := output.KernelFromSymbol(raw)
		if err != nil {
			return fmt.Errorf("kernel_symbols[%d]: %w", i, err)
		}
		if k.KernelID == 0 && k.Name == "" {
			continue // the empty entry of a kernel id without a symbol, as kernel_symbols is indexed by id
		}
		h.kernels = append(h.kernels, k)
	}
	dims := map[int]counters.Dimension{}
	for _, d := range strs.Counters.DimensionIDs {
		dims[d.ID] = counters.Dimension{Name: d.Name, Size: d.InstanceSize}
	}
	for _, c := range cobjs {
		info := counters.CounterInfo{Name: c.Name, Description: c.Description, Block: c.Block,
			Expression: c.Expression, Derived: c.IsDerived != 0}
		for _, id := range c.DimensionIDs {
			d, ok := dims[id]
			if !ok {
				return fmt.Errorf("counter %s: dimension id %d is not in strings.counters.dimension_ids", c.Name, id)
			}
			info.Dimensions = append(info.Dimensions, d)
		}
		if _, ok := h.counters[c.ID.Handle]; ok {
			return fmt.Errorf("counter id %d listed twice", c.ID.Handle)
		}
		h.counters[c.ID.Handle] = inCounter{agentID: c.AgentID.Handle, info: info}
	}
	return nil
}

// replayArray is the buffer_records array of the passes after a dispatch's first (output's
// gorocprof_replay_kernel_dispatch); files written before it have every pass in kernel_dispatch.
const replayArray = "gorocprof_replay_kernel_dispatch"

// scanRecords notes where the record arrays of callback_records.counter_collection and
// buffer_records.kernel_dispatch and its replays begin and skips every array of the object.
func scanRecords(dec *json.Decoder, key string, src *jsonSource) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		sub, err := keyToken(dec)
		if err != nil {
			return err
		}
		switch {
		case key == "callback_records" && sub == "counter_collection":
			src.countersAt = dec.InputOffset()
		case key == "buffer_records" && sub == "kernel_dispatch":
			src.traceAt = dec.InputOffset()
		case key == "buffer_records" && sub == replayArray:
			src.replaysAt = dec.InputOffset()
		}
		if err := skipValue(dec); err != nil {
			return fmt.Errorf("%q: %w", sub, err)
		}
	}
	return expectDelim(dec, '}')
}

func keyToken(dec *json.Decoder) (string, error) {
	t, err := dec.Token()
	if err != nil {
		return "", err
	}
	key, ok := t.(string)
	if !ok {
		return "", fmt.Errorf("expected an object key, found %v", t)
	}
	return key, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("expected %q, found the end of the file", want)
		}
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, found %v", want, t)
	}
	return nil
}

// skipValue skips one value, an array one element at a time, so that a long record array is
// never held.
func skipValue(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := t.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '[':
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return err
			}
		}
		return expectDelim(dec, ']')
	case '{':
		for dec.More() {
			if _, err := keyToken(dec); err != nil {
				return err
			}
			if err := skipValue(dec); err != nil {
				return err
			}
		}
		return expectDelim(dec, '}')
	}
	return fmt.Errorf("unexpected %q", d)
}
