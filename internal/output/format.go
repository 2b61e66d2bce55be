package output

import (
	"math"
	"strconv"
	"strings"
)

// FormatCounterValue prints a counter value the way rocprofv3's CSV writer does with C++ iostreams:
// values >= 1 in fixed notation with 6 decimals, everything else (including negative values and
// NaN) in scientific notation with 8 decimals. Non-finite values print as glibc prints them.
func FormatCounterValue(v float64) string {
	switch {
	case math.IsNaN(v):
		if math.Signbit(v) {
			return "-nan"
		}
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 6, 64)
	default:
		// Go, like C, prints at least two exponent digits and three when needed (1e-100).
		return strconv.FormatFloat(v, 'e', 8, 64)
	}
}

// csvString quotes a text field as rocprofv3 does: always in double quotes, inner quotes doubled.
func csvString(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
