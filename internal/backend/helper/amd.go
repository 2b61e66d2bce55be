package helper

import (
	"fmt"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// AMDCatalog is the counter catalog of an AMD-style agent (the simulated agents and the KFD's GPUs):
// the embedded definitions of its architecture, whose block limits answer whether a group fits one pass.
func AMDCatalog(a contract.Agent) (*counters.Catalog, error) {
	cat, err := counters.LoadAMD(strings.ToLower(a.Name))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Label(), err)
	}
	return cat, nil
}
