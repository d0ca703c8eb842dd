package main

import (
	"time"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/planview"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// defaultCheckTimeout bounds each check-mode run of plan --check without
// --check-timeout.
const defaultCheckTimeout = 2 * time.Minute

// predictions returns, for --check, the predictions of the playbooks the
// plan would run (workflow.PredictChanges) as the views show them: nil
// without --check, or without a plan to run.
func (f planFlags) predictions(cmd *cobra.Command, c *cli, root *config.Root, prior *state.State, planned *workflow.Planned, diags diag.Diagnostics) ([]planview.Prediction, error) {
	if !f.check || planned == nil || diags.HasErrors() {
		return nil, nil
	}
	execRoot, err := f.root.executorRoot(c, root, prior)
	if err != nil {
		return nil, usagef(cmd, "%v", err)
	}
	preds := workflow.PredictChanges(cmd.Context(), planned.Plan, planned.Desired, prior, executor.DriverOptions{Root: execRoot, Timeout: f.checkTimeout})
	return viewPredictions(preds), nil
}

// viewPredictions are preds as the views show them.
func viewPredictions(preds []workflow.Prediction) []planview.Prediction {
	out := make([]planview.Prediction, 0, len(preds))
	for _, p := range preds {
		v := planview.Prediction{Address: p.Address, Operation: p.Operation, Status: planview.PredictionChecked,
			ChangedTasks: p.Changed, Output: p.Output}
		switch {
		case p.Skipped != "":
			v.Status, v.Reason = planview.PredictionNotChecked, p.Skipped
		case p.Err != nil:
			v.Status, v.Reason = planview.PredictionFailed, p.Err.Error()
		}
		out = append(out, v)
	}
	return out
}
