package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"
)

// AvailOptions is the avail command (and -L).
type AvailOptions struct {
	Backend       string
	ROCmRoot      string
	ExtraCounters string      // -E: extra counter definitions, listed with the agents' own
	Agent         agentChoice // unset: every agent
	JSON          bool
	// Patterns keep the counters whose name one of them matches: a glob (`SQ_*`) or else a part of
	// the name, either without regard to case; none keeps every counter.
	Patterns []string
}

func newAvailCmd(f *Factory) *cobra.Command {
	opts := &AvailOptions{}
	cmd := &cobra.Command{
		Use:   "avail [PATTERN...]",
		Short: "List the agents and the counters each offers",
		Long: `List the agents and the counters each offers. With patterns, only the counters whose name
one of them matches: a glob (SQ_*) or a part of the name (wave), either without regard to case.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Patterns = args
			opts.Backend, opts.ROCmRoot = backendSetting(cmd.Flags()), rocmRootSetting(cmd.Flags())
			opts.ExtraCounters = extraSetting(cmd.Flags())
			return runAvail(cmd.Context(), f, opts)
		},
	}
	addExtraFlag(cmd)
	cmd.Flags().Var(agentSelector{&opts.Agent}, "agent", "only this agent: N for Agent N, GPU:N for GPU N, as avail prints them")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON for scripts")
	return cmd
}

// agentSelector is --agent: an agent by the number avail prints for it, "N" for Agent N (its number
// in the files, contract.Agent.LogicalNodeID) or "GPU:N" / "gpu-N" for GPU N (its GPU number,
// rocprofv3-avail's GPU:N and --pmc's :device=N). Unset, avail lists every agent.
type agentSelector struct{ p *agentChoice }

type agentChoice struct {
	set, gpu bool
	n        int64
}

func (a agentSelector) Set(s string) error {
	text, gpu := s, false
	if len(s) > 4 && strings.EqualFold(s[:3], "gpu") && (s[3] == ':' || s[3] == '-') {
		text, gpu = s[4:], true
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("expected an agent's number as avail prints it: N for Agent N, GPU:N for GPU N")
	}
	*a.p = agentChoice{set: true, gpu: gpu, n: n}
	return nil
}

func (a agentSelector) String() string {
	switch {
	case a.p == nil || !a.p.set:
		return ""
	case a.p.gpu:
		return fmt.Sprintf("GPU:%d", a.p.n)
	}
	return strconv.FormatInt(a.p.n, 10)
}

func (a agentSelector) Type() string { return "N|GPU:N" }

func runAvail(ctx context.Context, f *Factory, o *AvailOptions) error {
	if !slices.Contains(backends, o.Backend) {
		return fmt.Errorf("unknown backend %q (valid: %s)", o.Backend, strings.Join(backends, ", "))
	}
	if f.AvailData == nil {
		return errors.New("internal error: no agent catalog source wired into the command line")
	}
	extra, err := readExtraSetting(o.ExtraCounters)
	if err != nil {
		return err
	}
	agents, err := f.AvailData(ctx, backend.Choice{Name: o.Backend, ROCmRoot: o.ROCmRoot}, extra)
	if err != nil {
		return fmt.Errorf("listing agents of backend %s: %w", o.Backend, err)
	}
	if o.Agent.set {
		agents, err = selectAgent(agents, o.Agent)
		if err != nil {
			return err
		}
	}
	if agents, err = matchCounters(agents, o.Patterns); err != nil {
		return err
	}
	if o.JSON {
		return writeAvailJSON(f.IO.Out, agents)
	}
	return writeAvailTables(f.IO.Out, agents)
}

func selectAgent(agents []AgentCounters, c agentChoice) ([]AgentCounters, error) {
	var have []string
	for _, a := range agents {
		if (c.gpu && int64(a.Agent.Index) == c.n) || (!c.gpu && a.Agent.LogicalNodeID() == c.n) {
			return []AgentCounters{a}, nil
		}
		have = append(have, a.Agent.Label())
	}
	what := fmt.Sprintf("Agent %d", c.n)
	if c.gpu {
		what = fmt.Sprintf("GPU %d", c.n)
	}
	return nil, fmt.Errorf("--agent %s: there is no %s (agents: %s)", agentSelector{&c}, what, strings.Join(have, ", "))
}

type availJSON struct {
	Agent    agentJSON     `json:"agent"`
	Counters []counterJSON `json:"counters"`
}

// agentJSON is one agent: index is its GPU number, logical_node_id its number in the files, and
// node_id and logical_node_type_id are the other numbers rocprofv3 has for it (--agent-index).
type agentJSON struct {
	Index       int    `json:"index"`
	NodeID      uint64 `json:"node_id"`
	Logical     int64  `json:"logical_node_id"`
	TypeIndex   int64  `json:"logical_node_type_id"`
	Name        string `json:"name"`
	ProductName string `json:"product_name"`
	Vendor      string `json:"vendor"`
}

type counterJSON struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Block       string          `json:"block,omitempty"`
	Expression  string          `json:"expression,omitempty"`
	Derived     bool            `json:"derived"`
	Dimensions  []dimensionJSON `json:"dimensions"`
}

type dimensionJSON struct {
	Name string `json:"name"`
	Size int    `json:"size"`
}

func writeAvailJSON(w io.Writer, agents []AgentCounters) error {
	out := make([]availJSON, 0, len(agents))
	for _, a := range agents {
		e := availJSON{
			Agent: agentJSON{Index: a.Agent.Index, NodeID: a.Agent.NodeID(), Logical: a.Agent.LogicalNodeID(),
				TypeIndex: int64(a.Agent.Index), Name: a.Agent.Name, ProductName: a.Agent.ProductName, Vendor: a.Agent.Vendor},
		}
		for _, c := range a.Counters {
			cj := counterJSON{Name: c.Name, Description: c.Description, Block: c.Block, Expression: c.Expression,
				Derived: c.Derived, Dimensions: []dimensionJSON{}}
			for _, d := range c.Dimensions {
				cj.Dimensions = append(cj.Dimensions, dimensionJSON{Name: d.Name, Size: d.Size})
			}
			e.Counters = append(e.Counters, cj)
		}
		out = append(out, e)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

const availColumnWidth = 60

func writeAvailTables(w io.Writer, agents []AgentCounters) error {
	widths := availWidths(output.TerminalWidth(w), agents)
	for i, a := range agents {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s:", a.Agent.Label())
		if a.Agent.ProductName != "" {
			fmt.Fprintf(w, " %s,", a.Agent.ProductName)
		}
		fmt.Fprintf(w, " %d %s\n", len(a.Counters), output.Plural(len(a.Counters), "counter", "counters"))
		// Descriptions run to whole paragraphs; wrapping keeps the table readable in a terminal.
		// Cells are wrapped here, to the widths that fit the terminal; the table lays them out as given.
		t := tablewriter.NewTable(w, tablewriter.WithRowAutoWrap(tw.WrapNone))
		t.Header("Counter", "Block or expression", "Dimensions", "Description")
		for _, c := range a.Counters {
			source := wrapText(c.Block, widths[1])
			if c.Derived {
				source = wrapLines(wrapExpression(c.Expression, widths[1]), widths[1])
			}
			if err := t.Append(wrapText(c.Name, widths[0]), source, wrapText(dimensionsText(c.Dimensions), widths[2]), wrapText(c.Description, widths[3])); err != nil {
				return fmt.Errorf("listing counters of %s: %w", a.Agent.Label(), err)
			}
		}
		if err := t.Render(); err != nil {
			return fmt.Errorf("listing counters of %s: %w", a.Agent.Label(), err)
		}
	}
	return nil
}

func dimensionsText(dims []counters.Dimension) string {
	parts := make([]string, 0, len(dims))
	for _, d := range dims {
		if d.Size > 0 {
			parts = append(parts, fmt.Sprintf("%s[%d]", d.Name, d.Size))
		} else {
			parts = append(parts, d.Name)
		}
	}
	return strings.Join(parts, " ")
}

// wrapExpression breaks a long expression into lines after operators and commas; expressions have
// no spaces, so the table's word wrapping cannot break them.
func wrapExpression(expr string, width int) string {
	var lines []string
	line, piece := "", ""
	flush := func() {
		if line != "" && len(line)+len(piece) > width {
			lines = append(lines, line)
			line = ""
		}
		line += piece
		piece = ""
	}
	for _, r := range expr {
		piece += string(r)
		if strings.ContainsRune("+-*/,", r) {
			flush()
		}
	}
	flush()
	return strings.Join(append(lines, line), "\n")
}
