package e2etest

import "encoding/json"

// TraceResults is what tests read of a results.json's trace records: per process its agents' ids
// and types, the names of the kinds and operations, the marker messages, and the records of every
// buffer_records array (a copy's agents among their fields).
type TraceResults struct {
	Tool []struct {
		Metadata struct {
			PID int64 `json:"pid"`
		} `json:"metadata"`
		Agents []struct {
			ID   Handle `json:"id"`
			Type int    `json:"type"`
		} `json:"agents"`
		Strings struct {
			BufferRecords []struct {
				Kind       string   `json:"kind"`
				Operations []string `json:"operations"`
			} `json:"buffer_records"`
			MarkerAPI []struct {
				Key   uint64 `json:"key"`
				Value string `json:"value"`
			} `json:"marker_api"`
		} `json:"strings"`
		BufferRecords map[string][]TraceRecord `json:"buffer_records"`
	} `json:"rocprofiler-sdk-tool"`
}

// TraceRecord is one trace buffer record; Src and Dst are a copy's.
type TraceRecord struct {
	Kind        int `json:"kind"`
	Operation   int `json:"operation"`
	Correlation struct {
		Internal uint64 `json:"internal"`
	} `json:"correlation_id"`
	Start    int64   `json:"start_timestamp"`
	End      int64   `json:"end_timestamp"`
	ThreadID uint64  `json:"thread_id"`
	Src      *Handle `json:"src_agent_id"`
	Dst      *Handle `json:"dst_agent_id"`
}

// Handle is an SDK handle object.
type Handle struct {
	Handle uint64 `json:"handle"`
}

// ParseTraceResults decodes a results.json's trace view.
func ParseTraceResults(b []byte) (TraceResults, error) {
	var r TraceResults
	err := json.Unmarshal(b, &r)
	return r, err
}
