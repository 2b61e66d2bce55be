package stats

import (
	"strings"
	"testing"
)

func summaryOf(t *testing.T, domains []Domain, opts SummaryOptions, terminal bool) string {
	t.Helper()
	var b strings.Builder
	if err := WriteSummary(&b, domains, opts, terminal); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSummaryRows: rocprofv3's row formats in each unit: integers in nanoseconds, fmt's shortest
// doubles in the others, the mean and standard deviation as {:.3e}, the share as std::to_string.
func TestSummaryRows(t *testing.T) {
	var k Table
	for _, d := range []int64{100, 200, 300} {
		k.Add("gemm()", d)
	}
	k.Add("big_kernel", 1_500_000)
	domains := []Domain{{"KERNEL_DISPATCH", &k}}
	tests := []struct {
		units string
		row   string // gemm()'s row
	}{
		{"", "| gemm()                                   | KERNEL_DISPATCH |               3 |             600 |       2.000e+02 |      0.039984 |             100 |             300 |       1.000e+02 |"},
		{"nsec", "| gemm()                                   | KERNEL_DISPATCH |               3 |             600 |       2.000e+02 |      0.039984 |             100 |             300 |       1.000e+02 |"},
		{"usec", "| gemm()                                   | KERNEL_DISPATCH |               3 |             0.6 |       2.000e-01 |      0.039984 |             0.1 |             0.3 |       1.000e-01 |"},
		{"msec", "| gemm()                                   | KERNEL_DISPATCH |               3 |          0.0006 |       2.000e-04 |      0.039984 |          0.0001 |          0.0003 |       1.000e-04 |"},
		{"sec", "| gemm()                                   | KERNEL_DISPATCH |               3 |           6e-07 |       2.000e-07 |      0.039984 |           1e-07 |           3e-07 |       1.000e-07 |"},
	}
	for _, tc := range tests {
		t.Run(tc.units, func(t *testing.T) {
			got := summaryOf(t, domains, SummaryOptions{Whole: true, Units: tc.units}, false)
			unit := tc.units
			if unit == "" {
				unit = "nsec"
			}
			lines := strings.Split(got, "\n")
			if len(lines) != 9 || lines[1] != "ROCPROFV3 SUMMARY:" || lines[6] != tc.row {
				t.Fatalf("got\n%s\nwant the title, header, divider, big_kernel's row and then\n%s", got, tc.row)
			}
			if head := " DURATION (" + unit + ") "; !strings.Contains(lines[3], head) {
				t.Errorf("header %q lacks %q", lines[3], head)
			}
		})
	}
}

// TestSummaryTables: -D, --summary-groups and -S in rocprofv3's order, a group of several domains
// summing a name seen in both, a group that matches nothing printing nothing, and the terminal's
// indent.
func TestSummaryTables(t *testing.T) {
	var k, m Table
	k.Add("copy", 10)
	k.Add("copy", 30)
	k.Add("axpy", 100)
	m.Add("copy", 20)
	domains := []Domain{{"KERNEL_DISPATCH", &k}, {"MEMORY_COPY", &m}}
	got := summaryOf(t, domains, SummaryOptions{Whole: true, PerDomain: true, Groups: []string{"KERNEL.*|MEMORY_COPY", "HIP_API", "KERNEL"}}, true)
	var titles []string
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "    ROCPROFV3 ") {
			titles = append(titles, strings.TrimPrefix(l, "    "))
		}
	}
	want := []string{"ROCPROFV3 KERNEL_DISPATCH SUMMARY:", "ROCPROFV3 MEMORY_COPY SUMMARY:", "ROCPROFV3 KERNEL_DISPATCH + MEMORY_COPY SUMMARY:", "ROCPROFV3 SUMMARY:"}
	if strings.Join(titles, "\n") != strings.Join(want, "\n") {
		t.Errorf("tables %q, want %q (\"KERNEL\" matches no whole domain name, HIP_API no domain)", titles, want)
	}
	// copy over both domains: 10, 30, 20: mean 20, sample standard deviation 10, the first domain's name.
	row := "    | copy                                     | KERNEL_DISPATCH |               3 |              60 |       2.000e+01 |     37.500000 |              10 |              30 |       1.000e+01 |"
	if !strings.Contains(got, row) {
		t.Errorf("got\n%s\nwant the row\n%s", got, row)
	}
	if got := summaryOf(t, []Domain{{"KERNEL_DISPATCH", &Table{}}}, SummaryOptions{Whole: true, PerDomain: true}, false); got != "" {
		t.Errorf("no calls should print nothing, got %q", got)
	}
}

func TestSummaryBadOptions(t *testing.T) {
	var b strings.Builder
	if err := WriteSummary(&b, nil, SummaryOptions{Whole: true, Units: "min"}, false); err == nil || !strings.Contains(err.Error(), `"min"`) {
		t.Errorf("units min: err = %v, want one naming them", err)
	}
	if err := WriteSummary(&b, nil, SummaryOptions{Groups: []string{"(KERNEL"}}, false); err == nil || !strings.Contains(err.Error(), "(KERNEL") {
		t.Errorf("a bad group: err = %v, want one naming it", err)
	}
}
