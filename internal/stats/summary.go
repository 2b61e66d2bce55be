package stats

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Units are the time units of a summary (-u/--summary-units), with the nanoseconds in one.
var Units = []string{"sec", "msec", "usec", "nsec"}

var unitNs = map[string]float64{"sec": 1e9, "msec": 1e6, "usec": 1e3, "nsec": 1}

// SummaryOptions say which of rocprofv3's summary tables are printed and in which unit.
type SummaryOptions struct {
	Whole     bool     `json:"summary"`            // -S: one table over every domain
	PerDomain bool     `json:"summary_per_domain"` // -D: one table per domain
	Groups    []string `json:"summary_groups"`     // --summary-groups: one table per regular expression
	Units     string   `json:"summary_units"`      // -u: one of Units; "" is nsec
}

// Wanted says whether any table is asked for.
func (o SummaryOptions) Wanted() bool { return o.Whole || o.PerDomain || len(o.Groups) > 0 }

// GroupRegexp compiles a --summary-groups expression as rocprofv3 applies it: matched against the
// whole domain name (std::regex_match), here in RE2 syntax.
func GroupRegexp(expr string) (*regexp.Regexp, error) {
	if _, err := regexp.Compile(expr); err != nil {
		return nil, err // in the words of the expression as given
	}
	return regexp.Compile(`^(?:` + expr + `)$`)
}

// Domain is one traced domain's table, named as rocprofv3's domain_stats.csv names it
// ("KERNEL_DISPATCH").
type Domain struct {
	Name  string
	Table *Table
}

// WriteSummary writes the tables opts asks for, in rocprofv3's order: one per domain (-D), one per
// group (--summary-groups; a group that matches no domain with calls prints nothing), then the
// whole summary (-S). terminal indents every table by four spaces, as rocprofv3 does on a terminal
// stream and not in a file. domains come in rocprofv3's order (its domain_type), which orders the
// tables and the names of a group's title.
func WriteSummary(w io.Writer, domains []Domain, opts SummaryOptions, terminal bool) error {
	unit := opts.Units
	if unit == "" {
		unit = "nsec"
	}
	div, ok := unitNs[unit]
	if !ok {
		return fmt.Errorf("summary units %q: expected one of %s", unit, strings.Join(Units, ", "))
	}
	s := summaryWriter{w: bufio.NewWriter(w), unit: unit, div: div}
	if terminal {
		s.indent = "    "
	}
	if opts.PerDomain {
		for _, d := range domains {
			s.table(d.Name+" SUMMARY", []Domain{d})
		}
	}
	for _, expr := range opts.Groups {
		re, err := GroupRegexp(expr)
		if err != nil {
			return fmt.Errorf("--summary-groups %q: %w", expr, err)
		}
		var names []string
		var matched []Domain
		for _, d := range domains {
			if re.MatchString(d.Name) && d.Table.Len() > 0 {
				names = append(names, d.Name)
				matched = append(matched, d)
			}
		}
		s.table(strings.Join(names, " + ")+" SUMMARY", matched)
	}
	if opts.Whole {
		s.table("SUMMARY", domains)
	}
	return s.w.Flush()
}

type summaryWriter struct {
	w      *bufio.Writer
	unit   string
	div    float64
	indent string
}

// entry is one name of a summary with the domain it was first seen in.
type entry struct {
	row
	domain string
}

// table writes one table of the rows of domains, a name seen in several domains summed into one
// row; nothing when they have no calls.
func (s *summaryWriter) table(label string, domains []Domain) {
	var entries []*entry
	byName := map[string]*entry{}
	nameWidth, domainWidth := 40, 12
	var total int64
	for _, d := range domains {
		for _, r := range d.Table.sorted() {
			e := byName[r.name]
			if e == nil {
				e = &entry{row: row{name: r.name, min: r.min, max: r.max}, domain: d.Name}
				byName[r.name] = e
				entries = append(entries, e)
			}
			e.merge(r)
			total += r.total
			nameWidth = max(nameWidth, len(r.name))
		}
		domainWidth = max(domainWidth, len(d.Name))
	}
	if len(entries) == 0 {
		return
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].total > entries[j].total })

	fmt.Fprintf(s.w, "\n%sROCPROFV3 %s:\n\n", s.indent, label)
	widths := []int{nameWidth, domainWidth, 15, 15, 15, 13, 15, 15, 15}
	heads := []string{"NAME", "DOMAIN", "CALLS", "DURATION (" + s.unit + ")", "AVERAGE (" + s.unit + ")", "PERCENT (INC)",
		"MIN (" + s.unit + ")", "MAX (" + s.unit + ")", "STDDEV"}
	s.w.WriteString(s.indent)
	for i, h := range heads {
		s.w.WriteString("| " + pad(h, widths[i], 0) + " ")
	}
	s.w.WriteString("|\n" + s.indent)
	for _, wd := range widths {
		s.w.WriteString("|" + strings.Repeat("-", wd+2))
	}
	s.w.WriteString("|\n")
	for _, e := range entries {
		cells := []string{pad(e.name, nameWidth, -1), pad(e.domain, domainWidth, -1), pad(strconv.FormatInt(e.calls, 10), 15, 1)}
		share := 0.0
		if total > 0 {
			share = 100 * float64(e.total) / float64(total)
		}
		percent := strconv.FormatFloat(share, 'f', 6, 64) // std::to_string
		if s.div > 1 {
			cells = append(cells, pad(shortest(float64(e.total)/s.div), 15, 1), pad(sci(e.mean/s.div), 15, 1),
				pad(percent, 13, 1), pad(shortest(float64(e.min)/s.div), 15, 1), pad(shortest(float64(e.max)/s.div), 15, 1),
				pad(sci(e.stddev()/s.div), 15, 1))
		} else {
			cells = append(cells, pad(strconv.FormatInt(e.total, 10), 15, 1), pad(sci(e.mean), 15, 1), pad(percent, 13, 1),
				pad(strconv.FormatInt(e.min, 10), 15, 1), pad(strconv.FormatInt(e.max, 10), 15, 1), pad(sci(e.stddev()), 15, 1))
		}
		s.w.WriteString(s.indent + "| " + strings.Join(cells, " | ") + " |\n")
	}
	s.w.WriteString("\n")
}

// merge adds r's calls to e (Chan et al.'s pairwise update of the mean and squared deviations).
func (e *entry) merge(r *row) {
	if e.calls == 0 {
		e.row = *r
		return
	}
	n := e.calls + r.calls
	d := r.mean - e.mean
	e.sumSqrs += r.sumSqrs + d*d*float64(e.calls)*float64(r.calls)/float64(n)
	e.mean += d * float64(r.calls) / float64(n)
	e.calls, e.total, e.squares = n, e.total+r.total, e.squares+r.squares
	e.min, e.max = min(e.min, r.min), max(e.max, r.max)
}

// pad fits s in width characters as fmt's {:<}, {:^} and {:>} do: align -1 left, 0 centred (the odd
// space on the right), 1 right. Wider text is not cut.
func pad(s string, width, align int) string {
	n := width - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	switch align {
	case -1:
		return s + strings.Repeat(" ", n)
	case 1:
		return strings.Repeat(" ", n) + s
	}
	return strings.Repeat(" ", n/2) + s + strings.Repeat(" ", n-n/2)
}

// sci is fmt's {:.3e}.
func sci(v float64) string { return strconv.FormatFloat(v, 'e', 3, 64) }

// shortest is fmt's {} of a double: the shortest digits that read back as v, in fixed notation
// for decimal exponents from -4 to 15 and scientific outside.
func shortest(v float64) string {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	e := strconv.FormatFloat(v, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
