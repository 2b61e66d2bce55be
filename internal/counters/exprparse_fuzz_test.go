package counters

import "testing"

// FuzzParseExpression: a derived counter expression of any text parses or is a syntax error, never
// a panic; what parses prints (String) as an expression that parses to the same print.
func FuzzParseExpression(f *testing.F) {
	for _, seed := range []string{
		"SQ_WAVES*4/CU_NUM",
		"100*reduce(TCC_HIT,sum)/(reduce(TCC_HIT,sum)+reduce(TCC_MISS,sum))",
		"reduce(GRBM_GUI_ACTIVE,max,[DIMENSION_XCC])",
		"select(TCC_HIT,[DIMENSION_INSTANCE=3])",
		"accumulate(SQ_LEVEL_WAVES,HIGH_RES)",
		"-(-1e309)",
		"((((((((((x))))))))))",
		"a +* b",
		"reduce(x,",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		n, err := ParseExpression(src)
		if err != nil {
			return
		}
		printed := n.String()
		again, err := ParseExpression(printed)
		if err != nil {
			t.Fatalf("%q parses and prints as %q, which does not parse: %v", src, printed, err)
		}
		if again.String() != printed {
			t.Fatalf("%q prints as %q, which prints as %q", src, printed, again.String())
		}
	})
}
