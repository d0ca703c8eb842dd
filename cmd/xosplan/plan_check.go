package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// defaultCheckTimeout bounds each check-mode run of plan --check without
// --check-timeout.
const defaultCheckTimeout = 2 * time.Minute

// predictions returns, for --check (and not --json), the predictions of
// the playbooks the plan would run (workflow.PredictChanges): nil without
// --check, or without a plan to run.
func (f planFlags) predictions(cmd *cobra.Command, c *cli, root *config.Root, prior *state.State, planned *workflow.Planned, diags diag.Diagnostics) ([]workflow.Prediction, error) {
	if !f.check || f.json || planned == nil || diags.HasErrors() {
		return nil, nil
	}
	execRoot, err := f.root.executorRoot(c, root, prior)
	if err != nil {
		return nil, usagef(cmd, "%v", err)
	}
	preds := workflow.PredictChanges(cmd.Context(), planned.Plan, planned.Desired, prior, executor.DriverOptions{Root: execRoot, Timeout: f.checkTimeout})
	if preds == nil {
		preds = []workflow.Prediction{}
	}
	return preds, nil
}

// writePredictions prints plan --check's predictions under the plan.
func writePredictions(w io.Writer, preds []workflow.Prediction) error {
	var b strings.Builder
	b.WriteString("\nCheck mode: what the playbooks would change on their hosts, as ansible-playbook --check --diff\npredicts it. A prediction: nothing was changed.\n")
	if len(preds) == 0 {
		b.WriteString("\nNo playbook to check.\n")
	}
	for _, p := range preds {
		fmt.Fprintf(&b, "\n  # %s: %s", p.Address, p.Operation)
		switch {
		case p.Skipped != "":
			fmt.Fprintf(&b, " not checked: %s\n", p.Skipped)
			continue
		case p.Err != nil:
			fmt.Fprintf(&b, " could not be checked: %v\n", p.Err)
		case p.Changed == 0:
			b.WriteString(" would change nothing\n")
			continue
		case p.Changed > 0:
			fmt.Fprintf(&b, " would change %d task(s)\n", p.Changed)
		default:
			b.WriteString("\n")
		}
		for _, l := range strings.Split(strings.TrimRight(p.Output, "\n"), "\n") {
			if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "PLAY") || strings.HasPrefix(l, "ok: ") {
				continue
			}
			b.WriteString("      " + l + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
