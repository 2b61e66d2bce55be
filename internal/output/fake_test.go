package output

import (
	"errors"
	"fmt"
)

// fakeCounters mirrors the plan the fixtures were recorded under: on both agents pass 0 collects
// SQ_WAVES and SQ_INSTS_VALU, pass 1 SQ_WAVES and GRBM_COUNT, pass 2 the derived VALUInstsPerWave
// (its base counters SQ_INSTS_VALU and SQ_WAVES are in the records, but not requested on that pass).
type fakeCounters struct{}

var fakePlan = [][]string{
	{"SQ_WAVES", "SQ_INSTS_VALU"},
	{"GRBM_COUNT", "SQ_WAVES"},
	{"VALUInstsPerWave"},
}

func (fakeCounters) Requested(agentIndex, pass int) []string {
	if agentIndex < 0 || agentIndex > 1 || pass < 0 || pass >= len(fakePlan) {
		return nil
	}
	return fakePlan[pass]
}

func (fakeCounters) Describe(agentIndex int, name string) CounterInfo {
	se := []Dimension{{Name: "DIMENSION_SHADER_ENGINE", Size: 8}}
	if agentIndex == 1 {
		se = []Dimension{{Name: "DIMENSION_XCC", Size: 8}, {Name: "DIMENSION_SHADER_ENGINE", Size: 4}}
	}
	switch name {
	case "SQ_WAVES":
		return CounterInfo{Description: "Count number of waves sent to SQs.", Block: "SQ", Dimensions: se}
	case "SQ_INSTS_VALU":
		return CounterInfo{Description: "Number of VALU instructions issued.", Block: "SQ", Dimensions: se}
	case "GRBM_COUNT":
		return CounterInfo{Description: "Tie High - Count Number of Clocks", Block: "GRBM"}
	case "VALUInstsPerWave":
		return CounterInfo{Description: "VALU instructions per wave.", Expression: "SQ_INSTS_VALU/SQ_WAVES",
			Derived: true, Dimensions: se}
	}
	return CounterInfo{}
}

func (fakeCounters) Evaluate(agentIndex int, name string, base map[string][]float64) ([]float64, error) {
	if name != "VALUInstsPerWave" {
		return nil, fmt.Errorf("%s is not derived and was not collected", name)
	}
	insts, waves := base["SQ_INSTS_VALU"], base["SQ_WAVES"]
	if insts == nil || waves == nil || len(insts) != len(waves) {
		return nil, errors.New("base counters SQ_INSTS_VALU and SQ_WAVES are not both on this pass")
	}
	out := make([]float64, len(insts))
	for i := range insts {
		out[i] = insts[i] / waves[i]
	}
	return out, nil
}
