package records

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

const (
	cpuAgent = `{"t":"agent","id":9,"index":1,"name":"cpu","type":"CPU","props":{},"strings":{}}`
	apiLine  = `{"t":"api","domain":"HIP_RUNTIME_API","op":"hipMemcpy","correlation_id":12,"thread_id":4242,"start":100,"end":200}`
	mkLine   = `{"t":"marker","domain":"MARKER_CORE_RANGE_API","op":"roctxThreadRangeA","message":"step 3","correlation_id":13,"thread_id":4242,"start":90,"end":900}`
	copyLine = `{"t":"copy","op":"MEMORY_COPY_HOST_TO_DEVICE","correlation_id":12,"thread_id":4242,"src_agent_id":9,"dst_agent_id":1,"queue_id":0,"stream_id":0,"size":4096,"src_address":140000000,"dst_address":150000000,"start":120,"end":180}`
)

// traceCases are trace lines near the edges of the fast path's shape; each must decode as
// encoding/json decodes it, whichever path takes it.
var traceCases = []struct {
	line string
	fast bool
}{
	{apiLine, true},
	{mkLine, true},
	{copyLine, true},
	{`{"t":"api","domain":"HIP_RUNTIME_API","op":"hipMalloc","op_id":3,"correlation_id":1,"thread_id":1,"start":1,"end":2}`, true},
	{`{"t":"api","op":"hipMalloc","op_id":"three"}`, false},
	{`{"t":"api","op":"hipMalloc","op_id":3,"op_id":4}`, false},
	{`{"t":"api","op":"x","domain":"D","start":-5,"end":-0,"thread_id":1,"correlation_id":18446744073709551615}`, true},
	{`{"t":"api","correlation_id":18446744073709551616}`, false},
	{`{"t":"marker","message":"a \"quoted\" step","op":"roctxMarkA"}`, false},
	{`{"t":"marker","message":"caf\u00e9","op":"roctxMarkA"}`, false},
	{`{"t":"marker","message":"","op":"roctxMarkA","start":5,"end":5}`, true},
	{`{"t":"api","op":null}`, false},
	{`{"t":"api","op":"a","op":"b"}`, false},
	{`{"t":"api","Op":"a"}`, false},
	{`{"t":"copy","size":-1}`, false},
	{`{"t":"copy","size":1.5}`, false},
	{`{"t":"copy","size":1} `, false},
	{`{"t":"copy","size":1,"t":"api"}`, false},
	{`{"t":"api","start":9223372036854775808}`, false},
}

func TestFastTraceMatchesEncodingJSON(t *testing.T) {
	for _, tc := range traceCases {
		if fast := checkTraceMatchesJSON(t, []byte(tc.line)); fast != tc.fast {
			t.Errorf("%s: fast path took it: %v, want %v", tc.line, fast, tc.fast)
		}
	}
}

// checkTraceMatchesJSON decodes line both ways and reports whether the fast path took it.
func checkTraceMatchesJSON(t *testing.T, line []byte) bool {
	t.Helper()
	prefix, kind := tracePrefix(line)
	if prefix == nil {
		return false
	}
	var s traceScanner
	var got contract.Trace
	if !s.scan(line, prefix, kind, &got) {
		return false
	}
	want := contract.Trace{Kind: kind}
	if err := json.Unmarshal(line, &want); err != nil {
		t.Fatalf("%s: the fast path took a line encoding/json refuses: %v", line, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\nfast %+v\njson %+v", line, got, want)
	}
	return true
}

// FuzzTraceLine checks that the fast path never accepts a trace line that encoding/json decodes
// differently or refuses, and that a record file of such a line reads without failing.
func FuzzTraceLine(f *testing.F) {
	for _, tc := range traceCases {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkTraceMatchesJSON(t, line)
		p, err := ReadProcess(writeFile(t, lines(hdr, agent, cpuAgent, string(line))))
		if err != nil {
			t.Fatalf("reading a file with %q: %v", line, err)
		}
		defer p.Close()
		n := 0
		if err := p.EachTrace(func(*contract.Trace) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		if n != p.TraceCount() || n > 1 {
			t.Fatalf("EachTrace handed out %d lines, TraceCount %d", n, p.TraceCount())
		}
	})
}

func TestTraceLines(t *testing.T) {
	tests := []struct {
		name     string
		lines    []string
		want     []string // the lines EachTrace hands out, as describeTrace words them
		problems []string // substrings of the problems, in order
	}{
		{
			name:  "ordered by start, thread, correlation id, file order",
			lines: []string{hdr, agent, cpuAgent, apiLine, mkLine, copyLine, strings.Replace(apiLine, `"thread_id":4242`, `"thread_id":7`, 1)},
			want: []string{
				"marker step 3 13 4242 90 900",
				"api hipMemcpy 12 7 100 200",
				"api hipMemcpy 12 4242 100 200",
				"copy MEMORY_COPY_HOST_TO_DEVICE 12 4242 120 180 9>1 4096",
			},
		},
		{
			name: "a call and its copy at one start: api before copy whatever the file order, then domain, op, end",
			lines: []string{hdr, agent, cpuAgent, strings.Replace(copyLine, `"start":120`, `"start":100`, 1),
				strings.Replace(apiLine, `"end":200`, `"end":300`, 1), apiLine,
				strings.Replace(apiLine, `"domain":"HIP_RUNTIME_API","op":"hipMemcpy"`, `"domain":"HIP_COMPILER_API","op":"__hipPush"`, 1)},
			want: []string{
				"api __hipPush 12 4242 100 200",
				"api hipMemcpy 12 4242 100 200",
				"api hipMemcpy 12 4242 100 300",
				"copy MEMORY_COPY_HOST_TO_DEVICE 12 4242 100 180 9>1 4096",
			},
		},
		{
			name:  "threads ordered by id, not by first appearance",
			lines: []string{hdr, agent, strings.Replace(apiLine, `"thread_id":4242`, `"thread_id":99999`, 1), apiLine, strings.Replace(apiLine, `"thread_id":4242`, `"thread_id":5`, 1)},
			want:  []string{"api hipMemcpy 12 5 100 200", "api hipMemcpy 12 4242 100 200", "api hipMemcpy 12 99999 100 200"},
		},
		{
			name:     "end before start is reported, the line kept",
			lines:    []string{hdr, agent, strings.Replace(apiLine, `"end":200`, `"end":50`, 1)},
			want:     []string{"api hipMemcpy 12 4242 100 50"},
			problems: []string{"line 3: api hipMemcpy (correlation id 12) ends at 50, before its start 100"},
		},
		{
			name:     "a copy's agents must be listed",
			lines:    []string{hdr, agent, copyLine, cpuAgent},
			want:     []string{"copy MEMORY_COPY_HOST_TO_DEVICE 12 4242 120 180 9>1 4096"},
			problems: []string{"line 3: copy MEMORY_COPY_HOST_TO_DEVICE (correlation id 12) names source agent 9, which has no agent record before it"},
		},
		{
			name:     "unknown copy op, missing domain and op",
			lines:    []string{hdr, agent, cpuAgent, strings.Replace(copyLine, "HOST_TO_DEVICE", "SIDEWAYS", 1), `{"t":"api","correlation_id":1,"thread_id":1,"start":1,"end":1}`},
			want:     []string{"api  1 1 1 1", "copy MEMORY_COPY_SIDEWAYS 12 4242 120 180 9>1 4096"},
			problems: []string{`line 4: copy (correlation id 12): unknown op "MEMORY_COPY_SIDEWAYS"`, "line 5: api line has no op", "line 5: api line (correlation id 1) has no domain"},
		},
		{
			name:     "a damaged trace line costs itself",
			lines:    []string{hdr, agent, `{"t":"api","domain":"HIP_RUNTIME_API","op":"hipFree","start":"soon"}`, apiLine},
			want:     []string{"api hipMemcpy 12 4242 100 200"},
			problems: []string{"7.ndjson line 3: damaged line skipped: api record:"},
		},
		{
			name:  "a marker's message with escapes takes the slow path whole",
			lines: []string{hdr, agent, `{"t":"marker","domain":"MARKER_CORE_RANGE_API","op":"roctxMarkA","message":"say \"hi\"","correlation_id":3,"thread_id":1,"start":5,"end":5}`},
			want:  []string{`marker say "hi" 3 1 5 5`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ReadProcess(writeFile(t, lines(tc.lines...)))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			var got []string
			if err := p.EachTrace(func(tr *contract.Trace) error { got = append(got, describeTrace(tr)); return nil }); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("EachTrace:\n got %q\nwant %q", got, tc.want)
			}
			if p.TraceCount() != len(tc.want) {
				t.Errorf("TraceCount %d, want %d", p.TraceCount(), len(tc.want))
			}
			if len(p.Problems) != len(tc.problems) {
				t.Fatalf("problems %q, want %d like %q", p.Problems, len(tc.problems), tc.problems)
			}
			for i, w := range tc.problems {
				if !strings.Contains(p.Problems[i], w) {
					t.Errorf("problem %d %q does not contain %q", i, p.Problems[i], w)
				}
			}
		})
	}
}

// describeTrace is a line as the tests compare it.
func describeTrace(t *contract.Trace) string {
	s := t.Kind + " "
	if t.Kind == contract.RecMarker {
		s += t.Message
	} else {
		s += t.Op
	}
	s += " " + itoa(t.CorrelationID) + " " + itoa(t.ThreadID) + " " + itoa(uint64(t.Start)) + " " + itoa(uint64(t.End))
	if t.Kind == contract.RecCopy {
		s += " " + itoa(t.SrcAgentID) + ">" + itoa(t.DstAgentID) + " " + itoa(t.Size)
	}
	return s
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

func TestTracedDomains(t *testing.T) {
	p, err := ReadProcess(writeFile(t, lines(hdr, agent, cpuAgent, copyLine, mkLine, apiLine, apiLine)))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	want := []string{"HIP_RUNTIME_API", "MARKER_CORE_RANGE_API", "MEMORY_COPY"}
	if got := p.TracedDomains(); !reflect.DeepEqual(got, want) {
		t.Errorf("TracedDomains %q, want %q", got, want)
	}
}

// TestRecordsCarriesTraceLines: Records hands the trace lines out again in file order among the
// other records, every field intact, so that the application replay's merge carries them.
func TestRecordsCarriesTraceLines(t *testing.T) {
	in := []string{hdr, agent, cpuAgent, kern, mkLine, disp(1, 0, 1), copyLine, apiLine, disp(2, 0, 1), `{"t":"end","fini_time":9}`}
	p, err := ReadProcess(writeFile(t, lines(in...)))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, reuse := range []bool{false, true} {
		r := p.Records()
		if reuse {
			r.ReuseDispatches()
		}
		var types []string
		var traces []contract.Trace
		for rec, err := r.Next(); !errors.Is(err, io.EOF); rec, err = r.Next() {
			if err != nil {
				t.Fatal(err)
			}
			types = append(types, rec.Type)
			if rec.Trace != nil {
				traces = append(traces, *rec.Trace)
			}
		}
		want := []string{"header", "agent", "agent", "kernel", "marker", "dispatch", "copy", "api", "dispatch", "end"}
		if !reflect.DeepEqual(types, want) {
			t.Errorf("reuse %v: records %q, want %q", reuse, types, want)
		}
		for i, line := range []string{mkLine, copyLine, apiLine} {
			var w contract.Trace
			prefix, kind := tracePrefix([]byte(line))
			if prefix == nil || json.Unmarshal([]byte(line), &w) != nil {
				t.Fatal("bad test line")
			}
			w.Kind = kind
			if i < len(traces) && !reflect.DeepEqual(traces[i], w) {
				t.Errorf("reuse %v: trace %d %+v, want %+v", reuse, i, traces[i], w)
			}
		}
	}
}

// TestBuilderTraceLines: a process built record by record (the merge) checks and keeps trace
// lines as a read one does, and the payload may be reused once Add returns.
func TestBuilderTraceLines(t *testing.T) {
	b := NewBuilder("7.ndjson")
	var h contract.Header
	_ = json.Unmarshal([]byte(hdr), &h)
	h.Version = contract.Version
	b.Add(Record{Type: contract.RecHeader, Header: &h})
	tr := contract.Trace{Kind: contract.RecAPI, Domain: "HIP_RUNTIME_API", Op: "hipA", CorrelationID: 1, ThreadID: 1, Start: 20, End: 30}
	b.Add(Record{Type: contract.RecAPI, Trace: &tr})
	tr.Op, tr.Start, tr.End = "hipB", 10, 5
	b.Add(Record{Type: contract.RecAPI, Trace: &tr})
	p, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var got []string
	_ = p.EachTrace(func(t *contract.Trace) error { got = append(got, t.Op); return nil })
	if want := []string{"hipB", "hipA"}; !reflect.DeepEqual(got, want) {
		t.Errorf("EachTrace %q, want %q", got, want)
	}
	if len(p.Problems) != 1 || !strings.Contains(p.Problems[0], "line 3: api hipB (correlation id 1) ends at 5, before its start 10") {
		t.Errorf("problems %q", p.Problems)
	}
}
