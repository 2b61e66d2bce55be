package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/spf13/cobra"
)

// PlanOptions is the plan command: which passes a counter request needs on each agent.
type PlanOptions struct {
	Backend       string
	ROCmRoot      string
	ExtraCounters string // -E
	PMC           []string
	JSON          bool
}

func newPlanCmd(f *Factory) *cobra.Command {
	opts := &PlanOptions{}
	cmd := &cobra.Command{
		Use:   "plan --pmc A B [--pmc C ...]",
		Short: "Show the replay passes a counter request needs on each agent, without running anything",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Backend, opts.ROCmRoot = backendSetting(cmd.Flags()), rocmRootSetting(cmd.Flags())
			opts.ExtraCounters = extraSetting(cmd.Flags())
			if !cmd.Flags().Changed(optPMC) {
				if env := strings.TrimSpace(os.Getenv(envName(optPMC))); env != "" {
					opts.PMC = strings.Split(env, ";")
				}
			}
			return runPlan(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().Var(groupsValue{&opts.PMC}, optPMC, "counters to collect, one group per --pmc")
	_ = cmd.Flags().SetAnnotation(optPMC, annotationNargs, []string{"true"})
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON for scripts")
	addExtraFlag(cmd)
	return cmd
}

func runPlan(ctx context.Context, f *Factory, o *PlanOptions) error {
	var diags []string
	if !slices.Contains(backends, o.Backend) {
		diags = append(diags, fmt.Sprintf("--backend: unknown backend %q (valid: %s)", o.Backend, strings.Join(backends, ", ")))
	}
	groups, err := counters.ParseGroups(o.PMC)
	if err != nil {
		diags = append(diags, err.Error())
	} else if len(groups) == 0 {
		diags = append(diags, "plan needs counters: give at least one --pmc group")
	}
	extra, err := readExtraSetting(o.ExtraCounters)
	if err != nil {
		diags = append(diags, err.Error())
	}
	if len(diags) > 0 {
		return &ValidationError{Diagnostics: diags}
	}
	if f.PlanData == nil {
		return errors.New("internal error: no planner wired into the command line")
	}
	plans, err := f.PlanData(ctx, backend.Choice{Name: o.Backend, ROCmRoot: o.ROCmRoot}, extra, groups)
	if err != nil {
		return fmt.Errorf("planning on backend %s: %w", o.Backend, err)
	}
	if o.JSON {
		return writePlanJSON(f.IO.Out, plans)
	}
	return output.PlanTables(f.IO.Out, plans)
}

// writePlanJSON prints the plan as results.json's metadata carries it ("gorocprof_plan"), byte for
// byte: the same encoding of the same type, so a script reads either.
func writePlanJSON(w io.Writer, plans []contract.PlanAgent) error {
	data, err := json.Marshal(plans)
	if err != nil {
		return fmt.Errorf("encoding the plan: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}
