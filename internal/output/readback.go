package output

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// The inverses of the objects results.json (and the database's extdata) holds, for `gorocprof
// merge`, which reads its inputs back into records: kept beside the writers so that the two change
// together.

// AgentFromObject reads an agent object of results.json (agentObjects) back into its record: the
// numbers it has as props, the text fields, agent_index, and every other text field as a string
// (one written as gorocprof_<name> under its name).
func AgentFromObject(raw json.RawMessage) (contract.Agent, error) {
	var o map[string]json.RawMessage
	if err := json.Unmarshal(raw, &o); err != nil {
		return contract.Agent{}, fmt.Errorf("agent: %w", err)
	}
	r := objectReader{o: o}
	a := contract.Agent{Props: map[string]int64{}, Strings: map[string]string{}}
	a.ID = r.handle("id")
	switch r.int("type") {
	case 1:
		a.Type = "CPU"
	case 2:
		a.Type = "GPU"
	}
	for _, k := range agentNumbers {
		if _, ok := o[k]; ok { // a file written before the field was has none
			a.Props[k] = r.int(k)
		}
	}
	for _, prefix := range []string{"workgroup_max_dim", "grid_max_dim"} {
		var d struct{ X, Y, Z int64 }
		r.decode(prefix, &d)
		a.Props[prefix+"_x"], a.Props[prefix+"_y"], a.Props[prefix+"_z"] = d.X, d.Y, d.Z
	}
	a.Name, a.Vendor, a.ProductName = r.str("name"), r.str("vendor_name"), r.str("product_name")
	a.Strings["model_name"] = r.str("model_name")
	a.Index = int(r.int("agent_index"))
	known := map[string]bool{"size": true, "id": true, "type": true, "sdma_fw_version": true, "fw_version": true,
		"capability": true, "workgroup_max_dim": true, "grid_max_dim": true, "name": true, "vendor_name": true,
		"product_name": true, "model_name": true, "agent_index": true, "runtime_visibility": true, "uuid": true,
		"mem_banks": true, "caches": true, "io_links": true, "gpu_index": true}
	for _, k := range agentNumbers {
		known[k] = true
	}
	if raw := o["uuid"]; len(raw) > 0 && raw[0] == '"' { // written before uuid was rocprofv3's object
		a.Strings["uuid"] = r.str("uuid")
	}
	for k := range o {
		if !known[k] {
			a.Strings[strings.TrimPrefix(k, gorocprofPrefix)] = r.str(k)
		}
	}
	return a, r.err
}

// KernelFromSymbol reads a kernel_symbols object back into its kernel record.
func KernelFromSymbol(raw json.RawMessage) (contract.Kernel, error) {
	var o map[string]json.RawMessage
	if err := json.Unmarshal(raw, &o); err != nil {
		return contract.Kernel{}, fmt.Errorf("kernel symbol: %w", err)
	}
	r := objectReader{o: o}
	k := contract.Kernel{
		KernelID: r.uint("kernel_id"), Name: r.str("kernel_name"), Demangled: r.str("demangled_kernel_name"),
		Truncated: r.str("truncated_kernel_name"), AgentID: r.handle("agent_id"), KernargSize: r.int("kernarg_segment_size"),
		GroupSegmentSize: r.int("group_segment_size"), PrivateSegmentSize: r.int("private_segment_size"),
		SGPR: r.int("sgpr_count"), VGPR: r.int("arch_vgpr_count"), AccumVGPR: r.int("accum_vgpr_count"),
	}
	return k, r.err
}

// objectReader takes the fields of one JSON object, keeping the first failure, which names the
// field.
type objectReader struct {
	o   map[string]json.RawMessage
	err error
}

func (r *objectReader) decode(key string, v any) {
	raw, ok := r.o[key]
	if !ok || r.err != nil {
		return
	}
	if err := json.Unmarshal(raw, v); err != nil {
		r.err = fmt.Errorf("field %q: %w", key, err)
	}
}

func (r *objectReader) number(key string) json.Number {
	var n json.Number
	r.decode(key, &n)
	return n
}

func (r *objectReader) int(key string) int64 {
	n := r.number(key)
	if n == "" || r.err != nil {
		return 0
	}
	v, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		r.err = fmt.Errorf("field %q: %s is not an integer", key, n)
	}
	return v
}

func (r *objectReader) uint(key string) uint64 {
	n := r.number(key)
	if n == "" || r.err != nil {
		return 0
	}
	v, err := strconv.ParseUint(string(n), 10, 64)
	if err != nil {
		r.err = fmt.Errorf("field %q: %s is not a non-negative integer", key, n)
	}
	return v
}

func (r *objectReader) handle(key string) uint64 {
	var h struct {
		Handle uint64 `json:"handle"`
	}
	r.decode(key, &h)
	return h.Handle
}

func (r *objectReader) str(key string) string {
	var s string
	r.decode(key, &s)
	return s
}

// CounterValue reads a value of a counter record back: null is what appendNumber writes for a
// value that is not a number.
func CounterValue(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}
