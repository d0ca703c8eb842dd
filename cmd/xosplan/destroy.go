package main

import (
	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/applyview"
)

func newDestroyCommand(c *cli) *cobra.Command {
	var f applyFlags
	cmd := &cobra.Command{
		Use:   "destroy [flags] [PATH...]",
		Short: "Delete every resource recorded in the state",
		Long: `Destroy plans the deletion of every recorded resource (plan --destroy), shows it, asks
for confirmation unless --auto-approve is set, and applies it: each resource is deleted before
what it depended on, in parallel where nothing depends on it any more. Unmanaged resources are
only forgotten. The configuration (the current folder when no PATH is given) supplies the
folders of the resources' scripts.

Exit status: 0 success, 1 error or a failed action; with --detailed-exitcode, 2 when something
was destroyed.`,
		Example: `  xosplan destroy --auto-approve examples/webstack
  xosplan destroy --target app examples/webstack`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runApply(cmd, c, f, args, applyview.OpDestroy)
		},
	}
	f.add(cmd.Flags(), true)
	return cmd
}
