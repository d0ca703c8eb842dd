package main

import (
	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/pkg/planner"
)

// showFlags are the flags of `xosplan show`.
type showFlags struct {
	state stateFlags
	json  bool
}

func newShowCommand(c *cli) *cobra.Command {
	var f showFlags
	cmd := &cobra.Command{
		Use:   "show [flags] [PLANFILE]",
		Short: "Show a saved plan, or the recorded state",
		Long: `Show renders a plan file written by plan --out, as plan printed it or (--json) as the JSON
plan. Without a plan file it shows the recorded state: each resource's enacted spec and
the feedback last observed. Sensitive values are never shown.`,
		Example: `  xosplan show plan.bin
  xosplan show --json plan.bin | jq '.resource_changes[].change.actions'
  xosplan show --state prod.state.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef(cmd, "show takes at most one plan file, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				return showPlan(c, f, args[0])
			}
			return showState(cmd, c, f)
		},
	}
	fs := cmd.Flags()
	f.state.addRead(fs)
	fs.BoolVar(&f.json, "json", false, "print JSON: the JSON plan, or the state with sensitive values masked")
	return cmd
}

func showPlan(c *cli, f showFlags, path string) error {
	p, err := planner.ReadPlanFile(path)
	if err != nil {
		return err
	}
	return views.NewShow(f.json, c.streams()).Plan(p)
}

func showState(cmd *cobra.Command, c *cli, f showFlags) error {
	backend, err := f.state.open(cmd.Context(), c)
	if err != nil {
		return err
	}
	defer backend.Close()
	st, err := backend.Read(cmd.Context())
	if err != nil {
		return err
	}
	return views.NewShow(f.json, c.streams()).State(st)
}
