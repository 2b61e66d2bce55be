package counters

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// sdkList is what an SDK might list for a gfx90a: two SQ counters, a TCC counter, a derived
// counter over them and one whose expression names a counter the SDK lacks.
var sdkList = []SDKCounter{
	{Name: "SQ_WAVES", Description: "waves", Block: "SQ"},
	{Name: "SQ_INSTS_VALU", Description: "valu", Block: "SQ"},
	{Name: "TCC_HIT", Description: "hits", Block: "TCC"},
	{Name: "VALU_PER_WAVE", Description: "ratio", Expression: "SQ_INSTS_VALU/SQ_WAVES", Derived: true},
	{Name: "TCC_HIT_sum", Description: "hits summed", Expression: "reduce(TCC_HIT,sum)", Derived: true},
	{Name: "BROKEN", Expression: "NOT_LISTED*2", Derived: true},
	{Name: "BAD_SYNTAX", Expression: "SQ_WAVES+", Derived: true},
}

func TestNewAMDSDK(t *testing.T) {
	var asked []string
	c := NewAMDSDK("gfx90a", sdkList, func(names []string) (int, error) {
		asked = append(asked, strings.Join(names, ","))
		if len(names) > 1 && names[0] == "SQ_INSTS_VALU" && names[1] == "SQ_WAVES" {
			return 2, nil // this SDK takes the two SQ counters in two passes
		}
		return 1, nil
	})
	if got, want := c.Names(), []string{"SQ_INSTS_VALU", "SQ_WAVES", "TCC_HIT", "TCC_HIT_sum", "VALU_PER_WAVE"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names = %v, want %v", got, want)
	}
	var dropped []string
	for _, u := range c.Unsupported {
		dropped = append(dropped, u.Name)
	}
	if want := []string{"BAD_SYNTAX", "BROKEN"}; !reflect.DeepEqual(dropped, want) {
		t.Errorf("Unsupported = %v, want %v", c.Unsupported, want)
	}
	info, _ := c.Describe("TCC_HIT", map[string]float64{"tcc_channels": 16, "num_xcc": 1})
	if info.Block != "TCC" || info.Description != "hits" || len(info.Dimensions) == 0 {
		t.Errorf("Describe(TCC_HIT) = %+v, want the SDK's block and description with the block's dimensions", info)
	}
	target := []Target{{Index: 0, Name: "gfx90a", Catalog: c}}
	groups, err := ParseGroups([]string{"SQ_WAVES SQ_INSTS_VALU TCC_HIT_sum"})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(groups, target)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(plan.Agents[0].Passes); n != 2 {
		t.Errorf("passes = %d, want 2: the SDK takes the two SQ counters in two passes (%+v)", n, plan.Agents[0].Passes)
	}
	// A derived counter whose own base counters the SDK cannot take in one pass is refused.
	groups, _ = ParseGroups([]string{"VALU_PER_WAVE"})
	if _, err := NewPlan(groups, target); err == nil || !strings.Contains(err.Error(), "VALU_PER_WAVE needs 2 passes") {
		t.Errorf("planning VALU_PER_WAVE: %v, want it refused as needing 2 passes", err)
	}
	if len(asked) == 0 {
		t.Error("the planner never asked the SDK's oracle")
	}
}

func TestNewAMDSDKOracleErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		passes func([]string) (int, error)
		want   string
	}{
		{"error", func([]string) (int, error) { return 0, errors.New("helper died") }, "helper died"},
		{"zero", func([]string) (int, error) { return 0, nil }, "answered 0 passes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewAMDSDK("gfx90a", sdkList, tc.passes)
			if _, err := c.Fits([]Base{{Name: "SQ_WAVES", Block: "SQ"}}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Fits = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
