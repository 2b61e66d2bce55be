package output

import (
	"github.com/gorocprof/gorocprof/internal/contract"
)

// Headers verbatim from rocprofv3: hip_api_trace.csv, hsa_api_trace.csv and marker_api_trace.csv
// share one (and gorocprof's cuda_api_trace.csv and cuda_driver_api_trace.csv take it too).
var (
	apiTraceColumns        = []string{"Domain", "Function", "Process_Id", "Thread_Id", "Correlation_Id", "Start_Timestamp", "End_Timestamp"}
	memoryCopyTraceColumns = []string{"Kind", "Direction", "Stream_Id", "Source_Agent_Id", "Destination_Agent_Id",
		"Correlation_Id", "Start_Timestamp", "End_Timestamp"}
)

// traceColumns is the header of a trace line's CSV file.
func traceColumns(t *contract.Trace) []string {
	if t.Kind == contract.RecCopy {
		return memoryCopyTraceColumns
	}
	return apiTraceColumns
}

// traceFunction is what the rows and the statistics name a line by: an API call by its function, a
// marker by its message (rocprofv3 names a roctx range or mark by its message), a copy by its
// direction.
func traceFunction(t *contract.Trace) string {
	if t.Kind == contract.RecMarker {
		return t.Message
	}
	return t.Op
}

// appendTraceRow appends a trace line's CSV row, as rocprofv3 writes the row of its record: the
// domain, the function, the process and thread, the correlation and the times; a copy's kind,
// direction, stream and agents (as --agent-index names them) instead of the domain, function,
// process and thread.
func (v *view) appendTraceRow(b []byte, t *contract.Trace) []byte {
	r := row(b)
	if t.Kind == contract.RecCopy {
		r = r.text(contract.DomainMemoryCopy).text(t.Op).unum(t.StreamID).quoted(v.csvAgentLabel(t.SrcAgentID)).
			quoted(v.csvAgentLabel(t.DstAgentID))
	} else {
		r = r.text(t.Domain).text(traceFunction(t)).num(v.proc.Header.PID).unum(t.ThreadID)
	}
	r = r.unum(t.CorrelationID).num(t.Start).num(t.End)
	return append(r, '\n')
}
