package rocpd

import (
	"database/sql"
)

// callRows are the calls of one process (?1 its guid): its regions and its samples, each with its
// event's category, stack_id and parent_stack_id, and a marker's message (NULL for other calls), in
// the order of their events (the order the Writer was given them).
const callRows = `
SELECT E.id, (SELECT S.string FROM rocpd_string{u} S WHERE S.id = E.category_id), N.string,
	json_extract(E.extdata, '$.message'), json_type(E.extdata, '$.message') IS NOT NULL,
	E.stack_id, E.parent_stack_id, R.tid, R.start, R.end
FROM rocpd_region{u} R JOIN rocpd_event{u} E ON E.id = R.event_id JOIN rocpd_string{u} N ON N.id = R.name_id
WHERE R.guid = ?1
UNION ALL
SELECT E.id, (SELECT S.string FROM rocpd_string{u} S WHERE S.id = E.category_id),
	COALESCE(json_extract(SA.extdata, '$.operation'), ''),
	json_extract(E.extdata, '$.message'), json_type(E.extdata, '$.message') IS NOT NULL,
	E.stack_id, E.parent_stack_id, T.tid, SA.timestamp, SA.timestamp
FROM rocpd_sample{u} SA JOIN rocpd_event{u} E ON E.id = SA.event_id JOIN rocpd_track{u} T ON T.id = SA.track_id
WHERE SA.guid = ?1
ORDER BY 1`

// Calls hands every call of one process to fn in the order they were written; c is reused from one
// call to the next.
func (r *Reader) Calls(p ReadProcess, fn func(c *Call) error) error {
	var c Call
	return r.query(p.own(callRows), []any{p.GUID}, func(rs *sql.Rows) error {
		var ev, corr, parent, tid int64
		var msg sql.NullString
		if err := rs.Scan(&ev, &c.Category, &c.Name, &msg, &c.Marker, &corr, &parent, &tid, &c.Start, &c.End); err != nil {
			return err
		}
		c.Message = msg.String
		c.CorrelationID, c.ParentID, c.ThreadID = uint64(corr), uint64(parent), uint64(tid)
		return fn(&c)
	})
}

// copyRows are the copies of one process (?1 its guid) in the order they were written.
const copyRows = `
SELECT N.string, E.stack_id, M.tid, M.src_agent_id, M.dst_agent_id, COALESCE(M.queue_id, 0), COALESCE(M.stream_id, 0),
	M.size, COALESCE(M.src_address, 0), COALESCE(M.dst_address, 0), M.start, M.end
FROM rocpd_memory_copy{u} M JOIN rocpd_event{u} E ON E.id = M.event_id JOIN rocpd_string{u} N ON N.id = M.name_id
WHERE M.guid = ?1
ORDER BY M.id`

// Copies hands every memory copy of one process to fn in the order they were written; the agents
// are agent row ids (ReadRow.Row). c is reused from one call to the next.
func (r *Reader) Copies(p ReadProcess, fn func(c *Copy) error) error {
	var c Copy
	return r.query(p.own(copyRows), []any{p.GUID}, func(rs *sql.Rows) error {
		var corr, tid, src, dst, queue, stream, size, srcAddr, dstAddr int64
		if err := rs.Scan(&c.Name, &corr, &tid, &src, &dst, &queue, &stream, &size, &srcAddr, &dstAddr, &c.Start, &c.End); err != nil {
			return err
		}
		// Unsigned values above 2^63 went in as SQLite's signed integers; the bits come back.
		c.CorrelationID, c.ThreadID, c.SrcAgentID, c.DstAgentID = uint64(corr), uint64(tid), uint64(src), uint64(dst)
		c.QueueID, c.StreamID, c.Size, c.SrcAddress, c.DstAddress = uint64(queue), uint64(stream), uint64(size),
			uint64(srcAddr), uint64(dstAddr)
		return fn(&c)
	})
}
