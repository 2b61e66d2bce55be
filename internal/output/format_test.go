package output

import (
	"math"
	"strconv"
	"testing"
)

// The expectations were printed by a C++ program using std::fixed/std::scientific with the
// precisions above (g++ 12, glibc), so they pin the iostream behaviour, not Go's.
func TestFormatCounterValue(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0.00000000e+00"},
		{math.Copysign(0, -1), "-0.00000000e+00"},
		{1, "1.000000"},
		{4096, "4096.000000"},
		{0.5, "5.00000000e-01"},
		{0.1, "1.00000000e-01"},
		{0.99999999999, "1.00000000e+00"},
		{0.999999999, "9.99999999e-01"},
		{0.999999995, "9.99999995e-01"},
		{1e-100, "1.00000000e-100"},
		{1.5e-300, "1.50000000e-300"},
		{5e-324, "4.94065646e-324"},
		{1.2345678909999999e-07, "1.23456789e-07"},
		{123456789.123456789, "123456789.123457"},
		{2.0000005, "2.000001"},
		{1.0000005, "1.000001"},
		{-5, "-5.00000000e+00"},
		{-0.25, "-2.50000000e-01"},
		{1e22, "10000000000000000000000.000000"},
		{1e300, "1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160.000000"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{math.NaN(), "nan"},
	}
	for _, tc := range tests {
		if got := FormatCounterValue(tc.in); got != tc.want {
			t.Errorf("FormatCounterValue(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCSVString(t *testing.T) {
	tests := map[string]string{
		"":                   `""`,
		"SQ_WAVES":           `"SQ_WAVES"`,
		`say "hi", (int)`:    `"say ""hi"", (int)"`,
		"void k<1u>(float*)": `"void k<1u>(float*)"`,
	}
	for in, want := range tests {
		if got := csvString(in); got != want {
			t.Errorf("csvString(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestCounterValueWholeNumbers checks the short cut for whole numbers against strconv's 'f'.
func TestCounterValueWholeNumbers(t *testing.T) {
	vals := []float64{1, 2, 1e6, 1e15, 1<<53 - 1, 1 << 53, 1e300, 123456789}
	for i := 0; i < 3000; i++ {
		vals = append(vals, float64(i*i*i*i+1))
	}
	for _, v := range vals {
		if got, want := FormatCounterValue(v), strconv.FormatFloat(v, 'f', 6, 64); got != want {
			t.Errorf("FormatCounterValue(%v) = %s, want %s", v, got, want)
		}
	}
}
