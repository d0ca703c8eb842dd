package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/pkg/state"
)

func newTouchCommand(c *cli) *cobra.Command {
	var sf stateFlags
	cmd := &cobra.Command{
		Use:   "touch ADDRESS...",
		Short: "Save resources without change, so that the next apply actuates them again",
		Long: `Touch is XOS's "save without change": it sets each resource's updated version to now, later
than the version enacted (state show prints both under "versions"), so that the next plan,
apply or synchronizer reconcile actuates it again although nothing in its spec changed
(action_reason "touched"; the create runs again over the recorded object, which keeps its ids).
Nothing runs now; only the record changes, under the state lock. Nothing is touched when any
address is not in the state. A running synchronizer does the same on
POST /v1/resources/ADDRESS/resync.`,
		Example: `  xosplan touch web
  xosplan apply -auto-approve     # runs web's actuator again`,
		Args: minArgs(1, "ADDRESS"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return sf.locked(cmd, c, "touch", func(b state.Store) error {
				s, err := state.Touch(cmd.Context(), b, time.Now(), args...)
				if err != nil {
					return err
				}
				views.NewState(c.streams()).Touched(args, s.Serial)
				return nil
			})
		},
	}
	sf.add(cmd.Flags())
	return cmd
}
