package output

import (
	"strconv"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output/bgwrite"
)

// Headers verbatim from rocprofv3 (--output-format csv).
var (
	counterCollectionColumns = []string{
		"Correlation_Id", "Dispatch_Id", "Agent_Id", "Queue_Id", "Process_Id", "Thread_Id", "Grid_Size",
		"Kernel_Id", "Kernel_Name", "Workgroup_Size", "LDS_Block_Size", "Scratch_Size", "VGPR_Count",
		"Accum_VGPR_Count", "SGPR_Count", "Counter_Name", "Counter_Value", "Start_Timestamp", "End_Timestamp",
	}
	kernelTraceColumns = []string{
		"Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name",
		"Correlation_Id", "Start_Timestamp", "End_Timestamp", "LDS_Block_Size", "Scratch_Size", "VGPR_Count",
		"Accum_VGPR_Count", "SGPR_Count", "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z",
		"Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z",
	}
)

// row builds one CSV line: numbers bare, text quoted, as rocprofv3 writes them.
type row []byte

func (r row) num(n int64) row     { return strconv.AppendInt(r.sep(), n, 10) }
func (r row) unum(n uint64) row   { return strconv.AppendUint(r.sep(), n, 10) }
func (r row) text(s string) row   { return append(r.sep(), csvString(s)...) }
func (r row) quoted(q []byte) row { return append(r.sep(), q...) }
func (r row) value(f float64) row { return appendCounterValue(r.sep(), f) }
func (r row) sep() row {
	if len(r) > 0 {
		return append(r, ',')
	}
	return r
}

// writeCounterRows writes one row per requested counter of a pass; passes come by dispatch id,
// then pass, and counters by name. The value is the sum over the counter's instances on that
// pass; the file has no pass column (rocprofv3's header), so a counter collected on two passes
// appears twice.
func (v *view) writeCounterRows(w *bgwrite.Writer, d *contract.Dispatch, k kernelText, counters []idValues) {
	if len(counters) == 0 {
		return
	}
	grid := int64(d.Grid[0]) * int64(d.Grid[1]) * int64(d.Grid[2])
	wg := int64(d.Workgroup[0]) * int64(d.Workgroup[1]) * int64(d.Workgroup[2])
	// Everything up to the counter name is the same on every row of the pass.
	head := row(v.line[:0]).unum(d.CorrelationID).unum(d.DispatchID).quoted(v.csvAgentLabel(d.AgentID)).unum(d.QueueID).
		num(v.proc.Header.PID).unum(d.ThreadID).num(grid).unum(d.KernelID).quoted(k.quoted).num(wg).
		num(d.LDS).num(d.Scratch).num(k.k.VGPR).num(k.k.AccumVGPR).num(k.k.SGPR)
	n := len(head)
	line := head
	for _, c := range counters {
		line = line[:n].text(c.Name).value(sum(c.Values)).num(d.Start).num(d.End)
		w.Write(append(line, '\n'))
	}
	v.line = line
}

// writeKernelTraceRow writes one row per executed pass: under kernel replay every pass is a real
// execution with its own timestamps, which is what the kernel trace reports.
func (v *view) writeKernelTraceRow(w *bgwrite.Writer, d *contract.Dispatch, k kernelText) {
	line := row(v.line[:0]).text("KERNEL_DISPATCH").quoted(v.csvAgentLabel(d.AgentID)).unum(d.QueueID).unum(d.StreamID).
		unum(d.ThreadID).unum(d.DispatchID).unum(d.KernelID).quoted(k.quoted).unum(d.CorrelationID).
		num(d.Start).num(d.End).num(d.LDS).num(d.Scratch).num(k.k.VGPR).num(k.k.AccumVGPR).num(k.k.SGPR).
		unum(uint64(d.Workgroup[0])).unum(uint64(d.Workgroup[1])).unum(uint64(d.Workgroup[2])).
		unum(uint64(d.Grid[0])).unum(uint64(d.Grid[1])).unum(uint64(d.Grid[2]))
	w.Write(append(line, '\n'))
	v.line = line
}
