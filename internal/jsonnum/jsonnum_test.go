package jsonnum

import (
	"math"
	"testing"
)

func TestAppend(t *testing.T) {
	for in, want := range map[float64]string{
		0: "0", 8: "8", -3: "-3", 1.5: "1.5", 1e20: "1e+20", 0.1: "0.1", 1e15: "1e+15", 999999999999999: "999999999999999",
		math.NaN(): "null", math.Inf(1): "null", math.Inf(-1): "null",
	} {
		if got := string(Append(nil, in)); got != want {
			t.Errorf("Append(%v) = %s, want %s", in, got, want)
		}
	}
}
