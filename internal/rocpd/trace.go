package rocpd

import (
	"encoding/json"
	"fmt"
)

// Call is one traced host call or marker of the process (docs/tracing.md): an event of its
// category and a rocpd_region named by its function when it took time, else (a mark, or a call
// whose clock did not move) a rocpd_sample on its thread's track of its category, as rocprofv3
// writes them.
type Call struct {
	Category string // the domain: HIP_RUNTIME_API, MARKER_CORE_RANGE_API, ...
	Name     string // the function, the region's name
	// Marker: the event's extdata is {"message": Message}, which upstream's markers view reads as
	// the marker's name.
	Marker        bool
	Message       string
	CorrelationID uint64 // the event's stack_id, which the dispatches and copies it issued share
	ParentID      uint64 // parent_stack_id: the call this one was made in; 0 for none
	ThreadID      uint64
	Start, End    int64
}

// Copy is one traced memory copy: an event (category MEMORY_COPY, stack_id the host call that
// issued it) and a rocpd_memory_copy row. The agents are row ids of Agent rows.
type Copy struct {
	Name                   string // the operation: MEMORY_COPY_HOST_TO_DEVICE, ...
	CorrelationID          uint64
	ThreadID               uint64
	SrcAgentID, DstAgentID uint64
	QueueID, StreamID      uint64
	Size                   uint64
	SrcAddress, DstAddress uint64
	Start, End             int64
}

// CopyCategory is the event category of every copy, rocprofv3's buffer tracing kind name.
const CopyCategory = "MEMORY_COPY"

// Call adds one host call or marker of the current process.
func (w *Writer) Call(c *Call) error { return w.p.call(c) }

// Copy adds one memory copy of the current process.
func (w *Writer) Copy(c *Copy) error { return w.p.memoryCopy(c) }

// traceBatches prepares the inserts of the rows trace records add: their events (category bound,
// unlike a dispatch's), regions, samples and copies.
func (w *procWriter) traceBatches() error {
	nidPid := fmt.Sprintf("%d, %d", w.nid, w.pid)
	var err error
	if w.tev, err = newBatch(w.c, w.table("rocpd_event"), []string{"id", "category_id", "stack_id", "parent_stack_id",
		"correlation_id", "extdata"}, "(?, ?, ?, ?, 0, ?)"); err != nil {
		return err
	}
	if w.region, err = newBatch(w.c, w.table("rocpd_region"), []string{"id", "nid", "pid", "tid", "start", "end", "name_id",
		"event_id"}, "(?, "+nidPid+", ?, ?, ?, ?, ?)"); err != nil {
		return err
	}
	if w.sample, err = newBatch(w.c, w.table("rocpd_sample"), []string{"id", "track_id", "timestamp", "event_id", "extdata"},
		"(?, ?, ?, ?, ?)"); err != nil {
		return err
	}
	w.mcopy, err = newBatch(w.c, w.table("rocpd_memory_copy"), []string{"id", "nid", "pid", "tid", "start", "end", "name_id",
		"dst_agent_id", "dst_address", "src_agent_id", "src_address", "size", "queue_id", "stream_id", "event_id"},
		"(?, "+nidPid+", ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
	return err
}

// call writes a call's event and its region or sample.
func (w *procWriter) call(c *Call) error {
	if err := w.seenThread(c.ThreadID); err != nil {
		return err
	}
	cat, err := w.str(c.Category)
	if err != nil {
		return err
	}
	extdata := "{}"
	if c.Marker {
		b, err := json.Marshal(struct {
			Message string `json:"message"`
		}{c.Message})
		if err != nil {
			return err
		}
		extdata = string(b)
	}
	w.events++
	ev := w.events
	if err := w.tev.add(ev, cat, int64(c.CorrelationID), int64(c.ParentID), extdata); err != nil {
		return err
	}
	if c.Start != c.End {
		name, err := w.str(c.Name)
		if err != nil {
			return err
		}
		w.regions++
		return w.region.add(w.regions, int64(c.ThreadID), c.Start, c.End, name, ev)
	}
	// A sample is named by its track, which is its thread's of its category (upstream's views name
	// it so); the function goes into the sample's extdata, which no view reads, so that merge gets
	// it back.
	track, err := w.track(c.ThreadID, cat)
	if err != nil {
		return err
	}
	op, err := json.Marshal(struct {
		Operation string `json:"operation"`
	}{c.Name})
	if err != nil {
		return err
	}
	w.samples++
	return w.sample.add(w.samples, track, c.Start, ev, string(op))
}

// memoryCopy writes a copy's event and row.
func (w *procWriter) memoryCopy(c *Copy) error {
	if err := w.seenThread(c.ThreadID); err != nil {
		return err
	}
	if err := w.seenQueue(c.QueueID); err != nil {
		return err
	}
	if err := w.seenStream(c.StreamID); err != nil {
		return err
	}
	cat, err := w.str(CopyCategory)
	if err != nil {
		return err
	}
	name, err := w.str(c.Name)
	if err != nil {
		return err
	}
	w.events++
	ev := w.events
	corr := int64(c.CorrelationID)
	if err := w.tev.add(ev, cat, corr, corr, "{}"); err != nil {
		return err
	}
	w.copies++
	return w.mcopy.add(w.copies, int64(c.ThreadID), c.Start, c.End, name, int64(c.DstAgentID), int64(c.DstAddress),
		int64(c.SrcAgentID), int64(c.SrcAddress), int64(c.Size), int64(c.QueueID), int64(c.StreamID), ev)
}
