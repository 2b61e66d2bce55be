package output

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// The structs encoding/json wrote the per-pass records from before they were appended by hand;
// the appenders must give the same bytes.
type dim3 struct {
	X uint32 `json:"x"`
	Y uint32 `json:"y"`
	Z uint32 `json:"z"`
}

type correlation struct {
	Internal uint64 `json:"internal"`
	External uint64 `json:"external"`
}

type dispatchInfo struct {
	Size               int    `json:"size"`
	AgentID            handle `json:"agent_id"`
	QueueID            handle `json:"queue_id"`
	KernelID           uint64 `json:"kernel_id"`
	DispatchID         uint64 `json:"dispatch_id"`
	PrivateSegmentSize int64  `json:"private_segment_size"`
	GroupSegmentSize   int64  `json:"group_segment_size"`
	WorkgroupSize      dim3   `json:"workgroup_size"`
	GridSize           dim3   `json:"grid_size"`
}

func infoOf(d *contract.Dispatch) dispatchInfo {
	return dispatchInfo{
		AgentID: handle{d.AgentID}, QueueID: handle{d.QueueID}, KernelID: d.KernelID, DispatchID: d.DispatchID,
		PrivateSegmentSize: d.Scratch, GroupSegmentSize: d.LDS,
		WorkgroupSize: dim3{d.Workgroup[0], d.Workgroup[1], d.Workgroup[2]},
		GridSize:      dim3{d.Grid[0], d.Grid[1], d.Grid[2]},
	}
}

type counterRecord struct {
	DispatchData struct {
		Size           int          `json:"size"`
		CorrelationID  correlation  `json:"correlation_id"`
		StartTimestamp int64        `json:"start_timestamp"`
		EndTimestamp   int64        `json:"end_timestamp"`
		DispatchInfo   dispatchInfo `json:"dispatch_info"`
	} `json:"dispatch_data"`
	Records        []counterSample `json:"records"`
	ThreadID       uint64          `json:"thread_id"`
	ReplayPass     int             `json:"replay_pass"`
	StreamID       handle          `json:"stream_id"`
	ArchVGPRCount  int64           `json:"arch_vgpr_count"`
	AccumVGPRCount int64           `json:"accum_vgpr_count"`
	SGPRCount      int64           `json:"sgpr_count"`
	LDSBlockSizeV  int64           `json:"lds_block_size_v"`
}

type counterSample struct {
	CounterID handle `json:"counter_id"`
	Value     number `json:"value"`
}

type dispatchRecord struct {
	Size           int          `json:"size"`
	Kind           int          `json:"kind"`
	Operation      int          `json:"operation"`
	ThreadID       uint64       `json:"thread_id"`
	CorrelationID  correlation  `json:"correlation_id"`
	StartTimestamp int64        `json:"start_timestamp"`
	EndTimestamp   int64        `json:"end_timestamp"`
	DispatchInfo   dispatchInfo `json:"dispatch_info"`
	ReplayPass     int          `json:"replay_pass"`
	StreamID       handle       `json:"stream_id"`
}

func TestRecordAppendersMatchEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	u := func() uint64 { return r.Uint64() >> r.UintN(64) }
	i := func() int64 { return int64(u()) * int64(1-2*r.IntN(2)) }
	specials := []float64{0, math.Copysign(0, -1), 1e15, -1e15, 999999999999999, 1e300, 5e-324, 0.1, -2.5, math.NaN(), math.Inf(-1)}
	for n := 0; n < 2000; n++ {
		d := &contract.Dispatch{DispatchID: u(), Pass: int(i()), CorrelationID: u(), ExternalID: u(), AgentID: u(),
			QueueID: u(), StreamID: u(), ThreadID: u(), KernelID: u(), Grid: [3]uint32{r.Uint32(), r.Uint32(), 1},
			Workgroup: [3]uint32{r.Uint32(), 0, 7}, LDS: i(), Scratch: i(), Start: i(), End: i()}
		k := contract.Kernel{VGPR: i(), AccumVGPR: i(), SGPR: i()}
		var counters []idValues
		want := counterRecord{ThreadID: d.ThreadID, ReplayPass: d.Pass, StreamID: handle{d.StreamID}, ArchVGPRCount: k.VGPR,
			AccumVGPRCount: k.AccumVGPR, SGPRCount: k.SGPR, LDSBlockSizeV: d.LDS, Records: []counterSample{}}
		want.DispatchData.CorrelationID = correlation{d.CorrelationID, d.ExternalID}
		want.DispatchData.StartTimestamp, want.DispatchData.EndTimestamp = d.Start, d.End
		want.DispatchData.DispatchInfo = infoOf(d)
		for c := r.IntN(3); c > 0; c-- {
			iv := idValues{id: u()}
			for v := r.IntN(4); v > 0; v-- {
				x := r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
				if r.IntN(3) == 0 {
					x = specials[r.IntN(len(specials))]
				} else if r.IntN(2) == 0 {
					x = math.Round(x)
				}
				iv.Values = append(iv.Values, x)
				want.Records = append(want.Records, counterSample{handle{iv.id}, number(x)})
			}
			counters = append(counters, iv)
		}
		wantJSON, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendCounterRecord(nil, d, k, counters, d.Pass, -1); string(got) != string(wantJSON) {
			t.Fatalf("counter record\n got %s\nwant %s", got, wantJSON)
		}
		wantJSON, _ = json.Marshal(dispatchRecord{Kind: bufferKindKernelDispatch, Operation: dispatchOpComplete,
			ThreadID: d.ThreadID, CorrelationID: correlation{d.CorrelationID, d.ExternalID}, StartTimestamp: d.Start,
			EndTimestamp: d.End, DispatchInfo: infoOf(d), ReplayPass: d.Pass, StreamID: handle{d.StreamID}})
		if got := appendDispatchRecord(nil, d, d.Pass); string(got) != string(wantJSON) {
			t.Fatalf("dispatch record\n got %s\nwant %s", got, wantJSON)
		}
	}
}
