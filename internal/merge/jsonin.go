package merge

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/gorocprof/gorocprof/internal/boundedread"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/jsonerr"
	"github.com/gorocprof/gorocprof/internal/output"
)

// A results.json is read as a stream, twice or three times: scanJSON takes each element's head,
// notes where its two record arrays begin and checks the records where it can (early.go);
// jsonSource.each reads those arrays side by side, for the check where scanJSON did not and for the
// build (the
// counter records and, with the kernel trace, the kernel dispatch records, both in dispatch and
// pass order) and joins them into the passes of the records.

// jsonSource is where one element's record arrays begin in its file: the offset just after the
// key "counter_collection", "kernel_dispatch" or "gorocprof_replay_kernel_dispatch" (the passes
// after a dispatch's first); -1 when the element has none.
type jsonSource struct {
	countersAt, traceAt, replaysAt int64
	tracesAt                       map[string]int64 // the trace records' arrays (traceArrays) present
	names                          *traceNames      // what strings says of the trace records
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
	BufferRecords []kindNames     `json:"buffer_records"`
	MarkerAPI     []markerMessage `json:"marker_api"`
	Counters      struct {
		DimensionIDs []struct {
			ID           int    `json:"id"`
			InstanceSize int    `json:"instance_size"`
			Name         string `json:"name"`
		} `json:"dimension_ids"`
	} `json:"counters"`
}

// scanJSON reads the head of every element of a results.json.
func scanJSON(path string, read *atomic.Int64) ([]*head, error) {
	f, err := boundedread.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l := newLexer(f, 0, read)
	if c, err := l.peek(); err != nil || c != '{' {
		if err == nil {
			err = l.errorf("expected '{', found %q", c)
		}
		return nil, notResults(err)
	}
	var heads []*head
	found := false
	seen := map[string]bool{}
	err = l.object(func(key []byte) error {
		if seen[string(key)] {
			return fmt.Errorf("key %q given twice at the top of the file", key)
		}
		seen[string(key)] = true
		if string(key) != "rocprofiler-sdk-tool" {
			return l.skip()
		}
		found = true
		return l.array(func(i int) error {
			h, err := scanElement(l, path)
			if err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
			h.read = read
			heads = append(heads, h)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	if !l.atEOF() {
		return nil, l.errorf("text after the end of the results.json object")
	}
	if !found {
		return nil, errors.New(`not a results.json: it has no "rocprofiler-sdk-tool" array`)
	}
	return heads, nil
}

func notResults(err error) error {
	return fmt.Errorf(`not a results.json (a JSON object {"rocprofiler-sdk-tool":[...]}): %w`, err)
}

// decodeRaw reads one value with encoding/json: the small parts of a head. A key given twice in
// any of its objects is refused, as -i refuses it.
func decodeRaw(l *lexer, v any) error {
	raw, err := l.raw()
	if err != nil {
		return err
	}
	if err := jsonerr.CheckKeys(raw); err != nil {
		return err
	}
	return jsonerr.Describe(json.Unmarshal(raw, v))
}

// scanElement reads one element: its head decoded, its record arrays skipped and their offsets
// kept. The head (metadata, agents, counters, strings, kernel symbols) comes before the records, as
// gorocprof writes it.
func scanElement(l *lexer, path string) (*head, error) {
	h := &head{input: path, counters: map[uint64]inCounter{}}
	src := &jsonSource{countersAt: -1, traceAt: -1, replaysAt: -1, tracesAt: map[string]int64{}, names: &traceNames{}}
	h.src = src
	var md *metadata
	var cfg configObject
	var cobjs []counterObject
	var strs stringsObject
	var kernels, agents []json.RawMessage
	var early *earlyCheck
	records := false
	seen := map[string]bool{}
	err := l.object(func(key []byte) error {
		if seen[string(key)] {
			return fmt.Errorf("key %q given twice", key)
		}
		seen[string(key)] = true
		var derr error
		switch k := string(key); k {
		case "metadata":
			var raw json.RawMessage
			if derr = decodeRaw(l, &raw); derr == nil {
				md = &metadata{}
				derr = jsonerr.Describe(json.Unmarshal(raw, md))
			}
			if derr == nil {
				derr = jsonerr.Describe(json.Unmarshal(raw, &cfg))
			}
		case "agents":
			derr = decodeRaw(l, &agents)
		case "counters":
			derr = decodeRaw(l, &cobjs)
		case "strings":
			if derr = decodeRaw(l, &strs); derr == nil {
				derr = src.names.set(strs)
			}
		case "kernel_symbols":
			derr = decodeRaw(l, &kernels)
		case "callback_records", "buffer_records":
			if !records {
				records = true
				if md == nil {
					return errors.New(`"metadata" must come before the records`)
				}
				if err := h.fill(md, cfg, agents, kernels, cobjs, strs); err != nil {
					return err
				}
				early = newEarlyCheck(h)
			}
			derr = scanRecords(l, k, h, early)
		default:
			derr = l.skip()
		}
		if derr != nil {
			return fmt.Errorf("%q: %w", key, derr)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	early.finish()
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
// buffer_records.kernel_dispatch and its replays begin (just after the key, before the colon, where
// openArray starts) and how long they are, and reads every array of the object: the record arrays
// into the early check where it takes them, the others skipped.
func scanRecords(l *lexer, key string, h *head, early *earlyCheck) error {
	src := h.src.(*jsonSource)
	return l.object(func(sub []byte) error {
		var at *int64
		switch {
		case key == "callback_records" && string(sub) == "counter_collection":
			at = &src.countersAt
		case key == "buffer_records" && string(sub) == "kernel_dispatch":
			at = &src.traceAt
		case key == "buffer_records" && string(sub) == replayArray:
			at = &src.replaysAt
		}
		var err error
		switch {
		case key == "buffer_records" && isTraceArray(string(sub)):
			if _, twice := src.tracesAt[string(sub)]; twice {
				return fmt.Errorf("%q given twice", sub)
			}
			src.tracesAt[string(sub)] = l.keyEnd
			err = l.skip()
		case at == nil:
			err = l.skip()
		default:
			*at = l.keyEnd
			begin := l.off()
			err = skipRecords(l, early, key+"."+string(sub), begin)
			h.recordBytes += l.off() - begin
		}
		if err != nil {
			return fmt.Errorf("%q: %w", sub, err)
		}
		return nil
	})
}
