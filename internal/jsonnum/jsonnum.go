// Package jsonnum writes counter values as JSON numbers, the one way results.json and the rocpd
// database's extdata both spell them.
package jsonnum

import (
	"math"
	"strconv"
)

// Append writes f as a JSON number: an integral value as an integer, NaN and the infinities (which
// JSON lacks) as null, anything else in the shortest form that reads back as f.
func Append(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return append(b, "null"...)
	case f == math.Trunc(f) && math.Abs(f) < 1e15:
		return strconv.AppendInt(b, int64(f), 10)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}
