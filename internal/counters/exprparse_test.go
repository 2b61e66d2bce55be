package counters

import (
	"errors"
	"strings"
	"testing"
)

func TestParseExpression(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{"1+2*3", "(1 + (2 * 3))"},
		{"(1+2)*3", "((1 + 2) * 3)"},
		{"a-b-c", "((a - b) - c)"},
		{"a/b/c", "((a / b) / c)"},
		{"-a*+b", "((-a) * b)"},
		{"0.5*X", "(0.5 * X)"},
		{".25+1e3+2.5E-1", "((0.25 + 1000) + 0.25)"},
		{"reduce(SQ_WAVES,sum)", "reduce(SQ_WAVES, sum)"},
		{"reduce(TA_BUSY,avr)", "reduce(TA_BUSY, avg)"},
		{"reduce(TA_BUSY, avg)", "reduce(TA_BUSY, avg)"},
		{"reduce(X,max,[DIMENSION_XCC, SE])", "reduce(X, max, [DIMENSION_XCC, DIMENSION_SHADER_ENGINE])"},
		{"reduce(X,min,DIMENSION_INSTANCE)", "reduce(X, min, [DIMENSION_INSTANCE])"},
		{"select(X,[DIMENSION_XCC=[0], SHADER_ENGINE=3])", "select(X, [DIMENSION_XCC=0, DIMENSION_SHADER_ENGINE=3])"},
		{"reduce(accumulate(SQ_LEVEL_WAVES, HIGH_RES),sum)/CU_NUM", "(reduce(accumulate(SQ_LEVEL_WAVES, HIGH_RES), sum) / CU_NUM)"},
		{"400*reduce(SQ_WAIT_INST_LDS,sum)/reduce(SQ_WAVES,sum)", "((400 * reduce(SQ_WAIT_INST_LDS, sum)) / reduce(SQ_WAVES, sum))"},
		{"simd_count/simd_per_cu", "(simd_count / simd_per_cu)"},
		{"2*sm__inst_executed.sum/sm__warps_launched.sum", "((2 * sm__inst_executed.sum) / sm__warps_launched.sum)"},
		{"0.5*smsp__inst_executed_op_global_ld.sum.per_second", "(0.5 * smsp__inst_executed_op_global_ld.sum.per_second)"},
	}
	for _, tt := range tests {
		n, err := ParseExpression(tt.src)
		if err != nil {
			t.Errorf("ParseExpression(%q): %v", tt.src, err)
			continue
		}
		if got := n.String(); got != tt.want {
			t.Errorf("ParseExpression(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}

func TestParseExpressionErrors(t *testing.T) {
	tests := []struct {
		src  string
		pos  int
		frag string
	}{
		{"", 1, "expected a number"},
		{"A+", 3, "expected a number"},
		{"A B", 3, `unexpected "B"`},
		{"(A+B", 5, `expected ")"`},
		{"A$B", 2, "unexpected character '$'"},
		{"reduce(A,median)", 10, `unknown reduce operator "median"`},
		{"reduce(A)", 9, `expected ","`},
		{"sqrt(A)", 1, `unknown function "sqrt"`},
		{"accumulate(A, FAST)", 15, `unknown accumulate mode "FAST"`},
		{"select(A, [XCC=-1])", 16, "non-negative integer index"},
		{"select(A, XCC=1)", 11, `expected "["`},
		{"reduce(A,sum,[GALAXY])", 15, `unknown dimension "GALAXY"`},
		{"reduce(A,sum,[XCC)", 18, `expected "]"`},
		{"A*)", 3, "expected a number"},
	}
	for _, tt := range tests {
		_, err := ParseExpression(tt.src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseExpression(%q) error = %v, want a SyntaxError", tt.src, err)
			continue
		}
		if se.Pos != tt.pos || !strings.Contains(se.Msg, tt.frag) {
			t.Errorf("ParseExpression(%q) = position %d %q, want position %d containing %q", tt.src, se.Pos, se.Msg, tt.pos, tt.frag)
		}
		if !strings.Contains(err.Error(), tt.src) {
			t.Errorf("error %q does not quote the expression", err)
		}
	}
}
