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
	return string(appendCounterValue(nil, v))
}

func appendCounterValue(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		if math.Signbit(v) {
			return append(b, "-nan"...)
		}
		return append(b, "nan"...)
	case math.IsInf(v, 1):
		return append(b, "inf"...)
	case math.IsInf(v, -1):
		return append(b, "-inf"...)
	case v >= 1 && v < 1<<53 && v == math.Trunc(v):
		// What 'f' prints for a whole number it holds exactly, without its general conversion.
		return append(strconv.AppendUint(b, uint64(v), 10), ".000000"...)
	case v >= 1:
		return strconv.AppendFloat(b, v, 'f', 6, 64)
	default:
		// Go, like C, prints at least two exponent digits and three when needed (1e-100).
		return strconv.AppendFloat(b, v, 'e', 8, 64)
	}
}

// csvString quotes a text field as rocprofv3 does: always in double quotes, inner quotes doubled.
func csvString(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
