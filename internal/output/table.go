package output

import (
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
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
