package output

import (
	"io"
	"os"
	"strconv"

	"github.com/mattn/go-isatty"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"golang.org/x/sys/unix"
)

// NewTable starts a table the way every gorocprof table looks: ASCII borders, headers as written
// and cells never wrapped, so that scripts and diffs see every name whole. align gives each
// column's alignment; nil keeps the library's own.
func NewTable(w io.Writer, align []tw.Align) *tablewriter.Table {
	opts := []tablewriter.Option{
		tablewriter.WithRendition(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)}),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	}
	if align != nil {
		opts = append(opts, tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}))
	}
	return tablewriter.NewTable(w, opts...)
}

// TerminalWidth is how many columns a table written to w may take: $COLUMNS when it holds a
// positive number (the user's word, terminal or not), else the width of the terminal w is, else 0,
// no limit (a file or a pipe gets every name whole).
func TerminalWidth(w io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	f, ok := w.(*os.File)
	if !ok || !isatty.IsTerminal(f.Fd()) {
		return 0
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 {
		return 0
	}
	return int(ws.Col)
}

// minNameWidth is the narrowest a cut name column gets, however narrow the terminal: below it
// names no longer tell kernels apart, and a wrapped line reads better than none.
const minNameWidth = 24

// fitColumn cuts the cells of column col so that rows, laid out as NewTable lays them out, fit
// width columns, and returns the width it cut them to, 0 when it cut none. width 0 means no limit.
func fitColumn(header []string, rows [][]string, col, width int) int {
	if width <= 0 {
		return 0
	}
	widths := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			widths[i] = max(widths[i], cellWidth(c))
		}
	}
	// "| a | b |": each column is its cells and a space either side, plus one bar each and one more.
	total := 1
	for _, w := range widths {
		total += w + 3
	}
	budget := max(widths[col]-(total-width), minNameWidth, cellWidth(header[col]))
	if widths[col] <= budget {
		return 0
	}
	for _, r := range rows {
		r[col] = cutCell(r[col], budget)
	}
	return budget
}

func cellWidth(s string) int { return len([]rune(s)) }

// cutCell ends a cell longer than width with "..." at width.
func cutCell(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	return string(r[:width-3]) + "..."
}
