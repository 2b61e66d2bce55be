package counters

import "math"

// Dimension names, as rocprofv3 prints them.
const (
	DimXCC          = "DIMENSION_XCC"
	DimShaderEngine = "DIMENSION_SHADER_ENGINE"
	DimInstance     = "DIMENSION_INSTANCE"
)

// How a block's instances are laid out. The model is deliberately coarse: every block is
// replicated per XCC; shader-engine blocks once per shader engine of an XCC; per-CU blocks once per
// CU of an XCC; memory-side blocks once per L2 channel of an XCC. Values of a base counter are
// flattened row-major in the order of its dimensions (XCC outermost). A derived counter has the
// dimensions its expression leaves: none when it reduces everything, the block's when it only
// scales a base counter (MfmaFlopsF16 = SQ_INSTS_VALU_MFMA_MOPS_F16*512 keeps SQ's).
type scope int

const (
	scopeXCC scope = iota
	scopeSE
	scopeCU
	scopeChannel
)

var blockScopes = map[string]scope{
	"SQ": scopeSE, "SQC": scopeSE, "SPI": scopeSE, "GRBM_SE": scopeSE, "SX": scopeSE, "PA_SC": scopeSE,
	"PA_SU": scopeSE, "DB": scopeSE, "CB": scopeSE, "GL1A": scopeSE, "GL1C": scopeSE, "RMI": scopeSE,
	"TA": scopeCU, "TD": scopeCU, "TCP": scopeCU,
	"TCC": scopeChannel, "TCA": scopeChannel, "GL2C": scopeChannel, "GL2A": scopeChannel,
	"GCEA": scopeChannel, "UMC": scopeChannel,
}

// Agent constants the dimension sizes come from (agent property names, lower case).
// tcc_channels is not a KFD property: a backend that knows the L2 channel count reports it.
const (
	constXCC         = "num_xcc"
	constArrays      = "array_count"
	constArraysPerSE = "simd_arrays_per_engine"
	constCUs         = "cu_count"
	constSIMDs       = "simd_count"
	constSIMDsPerCU  = "simd_per_cu"
	constChannels    = "tcc_channels"
)

// blockDimensions returns the dimensions of a block's counters on an agent with these constants.
func blockDimensions(block string, consts map[string]float64) []Dimension {
	xcc := constInt(consts, constXCC)
	dims := []Dimension{{DimXCC, xcc}}
	switch blockScopes[block] {
	case scopeSE:
		dims = append(dims, Dimension{DimShaderEngine, perXCC(shaderEngines(consts), xcc)})
	case scopeCU:
		dims = append(dims, Dimension{DimInstance, perXCC(computeUnits(consts), xcc)})
	case scopeChannel:
		dims = append(dims, Dimension{DimInstance, constInt(consts, constChannels)})
	}
	return dims
}

func shaderEngines(consts map[string]float64) int {
	arrays, perSE := constInt(consts, constArrays), constInt(consts, constArraysPerSE)
	if arrays == 0 || perSE == 0 {
		return 0
	}
	return arrays / perSE
}

func computeUnits(consts map[string]float64) int {
	if n := constInt(consts, constCUs); n > 0 {
		return n
	}
	simds, per := constInt(consts, constSIMDs), constInt(consts, constSIMDsPerCU)
	if per == 0 {
		return 0
	}
	return simds / per
}

func perXCC(total, xcc int) int {
	if xcc == 0 {
		return 0
	}
	return total / xcc
}

func constInt(consts map[string]float64, key string) int {
	v, ok := consts[key]
	if !ok || v < 0 || v > math.MaxInt32 {
		return 0
	}
	return int(v)
}

// shape returns the sizes of dims, and false when any is unknown.
func shape(dims []Dimension) ([]int, bool) {
	sizes := make([]int, len(dims))
	for i, d := range dims {
		if d.Size <= 0 {
			return nil, false
		}
		sizes[i] = d.Size
	}
	return sizes, true
}

// dimsOf returns the dimensions of an expression's value, following the same rules as evaluation:
// reductions and selections remove dimensions, arithmetic keeps its operands'. Each derived
// counter's dimensions are found once (memo, by name).
func (c *Catalog) dimsOf(n *Node, consts map[string]float64, memo map[string][]Dimension) []Dimension {
	switch n.Kind {
	case KindIdent:
		k, ok := c.counters[n.Name]
		switch {
		case !ok:
			return nil
		case k.base != nil && c.Vendor == VendorAMD:
			return blockDimensions(k.base.Block, consts)
		case k.base == nil:
			if d, ok := memo[n.Name]; ok {
				return d
			}
			memo[n.Name] = nil // a cycle ends here
			d := c.dimsOf(k.ast, consts, memo)
			memo[n.Name] = d
			return d
		}
		return nil
	case KindAccumulate, KindUnary:
		return c.dimsOf(n.X, consts, memo)
	case KindReduce:
		if len(n.Dims) == 0 {
			return nil
		}
		return without(c.dimsOf(n.X, consts, memo), n.Dims)
	case KindSelect:
		names := make([]string, len(n.Sel))
		for i, s := range n.Sel {
			names[i] = s.Dim
		}
		return without(c.dimsOf(n.X, consts, memo), names)
	case KindBinary:
		if d := c.dimsOf(n.X, consts, memo); d != nil {
			return d
		}
		return c.dimsOf(n.Y, consts, memo)
	}
	return nil
}

func without(dims []Dimension, names []string) []Dimension {
	var out []Dimension
	for _, d := range dims {
		drop := false
		for _, n := range names {
			if d.Name == n {
				drop = true
			}
		}
		if !drop {
			out = append(out, d)
		}
	}
	return out
}
