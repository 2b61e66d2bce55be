package counters

import "fmt"

// SDKCounter is one counter as rocprofiler-sdk lists it for an agent (the rocm query helper's
// `metrics`): a base counter of a block, or a derived one with its expression.
type SDKCounter struct {
	Name, Description, Block, Expression string
	Derived                              bool
}

// NewAMDSDK builds the catalog of an AMD agent from the counters rocprofiler-sdk lists for it.
// Expressions are evaluated as the embedded definitions' are, and dimensions follow the blocks;
// whether a set of base counters fits one pass is asked of passes (the SDK's answer to a counter
// config), because the SDK, not gorocprof's block limits, decides what the hardware takes.
func NewAMDSDK(arch string, list []SDKCounter, passes func(counters []string) (int, error)) *Catalog {
	c := newCatalog(arch, "rocprofiler-sdk", VendorAMD)
	c.passes = passes
	for _, s := range list {
		if _, dup := c.counters[s.Name]; dup {
			continue
		}
		k := &counter{name: s.Name, description: s.Description, expression: s.Expression}
		if !s.Derived {
			k.base = &Base{Name: s.Name, Block: s.Block}
			c.add(k)
			continue
		}
		ast, err := ParseExpression(s.Expression)
		if err != nil {
			c.Unsupported = append(c.Unsupported, Unsupported{Name: s.Name, Reason: err.Error()})
			continue
		}
		k.ast = ast
		c.add(k)
	}
	c.resolve()
	c.finish()
	return c
}

// asksOracle says whether pass questions go to the backend's oracle (NVIDIA, and AMD agents whose
// catalog the SDK listed) rather than to block limits.
func (c *Catalog) asksOracle() bool {
	return c.Vendor == VendorNVIDIA || c.passes != nil
}

// oracleFits asks the oracle whether bases take one pass.
func (c *Catalog) oracleFits(bases []Base) (bool, error) {
	names := make([]string, len(bases))
	for i, b := range bases {
		names[i] = b.Name
	}
	n, err := c.passCount(names)
	if err == nil && n < 1 {
		return false, fmt.Errorf("%s answered %d passes for %v", c.Arch, n, names)
	}
	return err == nil && n == 1, err
}
