package output

import (
	"bufio"
	"strconv"
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
func (r row) value(f float64) row { return append(r.sep(), FormatCounterValue(f)...) }

func (r row) sep() row {
	if len(r) > 0 {
		return append(r, ',')
	}
	return r
}

// writeCounterCSV writes one row per (dispatch, pass, requested counter), ordered by dispatch id,
// pass and counter name. The value is the sum over the counter's instances on that pass; the file
// has no pass column (rocprofv3's header), so a counter collected on two passes appears twice.
func (v *view) writeCounterCSV(w *bufio.Writer) error {
	writeHeader(w, counterCollectionColumns)
	pid := v.proc.Header.PID
	var line row
	for _, p := range v.passes {
		d, k := p.d, p.kernel
		grid := int64(d.Grid[0]) * int64(d.Grid[1]) * int64(d.Grid[2])
		wg := int64(d.Workgroup[0]) * int64(d.Workgroup[1]) * int64(d.Workgroup[2])
		for _, c := range p.counters {
			line = line[:0].unum(d.CorrelationID).unum(d.DispatchID).unum(d.AgentID).unum(d.QueueID).
				num(pid).unum(d.ThreadID).num(grid).unum(d.KernelID).text(v.kernelName(k)).num(wg).
				num(d.LDS).num(d.Scratch).num(k.VGPR).num(k.AccumVGPR).num(k.SGPR).
				text(c.Name).value(sum(c.Values)).num(d.Start).num(d.End)
			w.Write(append(line, '\n'))
		}
	}
	return nil
}

// writeKernelTraceCSV writes one row per executed pass: under kernel replay every pass is a real
// execution with its own timestamps, which is what the kernel trace reports.
func (v *view) writeKernelTraceCSV(w *bufio.Writer) error {
	writeHeader(w, kernelTraceColumns)
	var line row
	for _, p := range v.passes {
		d, k := p.d, p.kernel
		line = line[:0].text("KERNEL_DISPATCH").unum(d.AgentID).unum(d.QueueID).unum(d.StreamID).
			unum(d.ThreadID).unum(d.DispatchID).unum(d.KernelID).text(v.kernelName(k)).unum(d.CorrelationID).
			num(d.Start).num(d.End).num(d.LDS).num(d.Scratch).num(k.VGPR).num(k.AccumVGPR).num(k.SGPR).
			unum(uint64(d.Workgroup[0])).unum(uint64(d.Workgroup[1])).unum(uint64(d.Workgroup[2])).
			unum(uint64(d.Grid[0])).unum(uint64(d.Grid[1])).unum(uint64(d.Grid[2]))
		w.Write(append(line, '\n'))
	}
	return nil
}
