package planview

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

func predictionPlan(t *testing.T) *planner.Plan {
	t.Helper()
	g := graph.New()
	_ = g.AddResource(&graph.Resource{Address: "app", Type: "t", Driver: graph.Driver{Name: graph.DriverNoop}, Management: graph.Managed})
	p, diags := planner.Diff(context.Background(), g, &state.State{Version: 1, Serial: 1, Lineage: "l"}, planner.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	return p
}

// plan --check's predictions in the JSON plan: each status with its
// fields, an unknown count as null, a long diff cut to its end, under
// format_version 1.3; without predictions the plan is 1.2 and has no
// check_predictions.
func TestJSONPredictions(t *testing.T) {
	p := predictionPlan(t)
	long := strings.Repeat("+a line of the diff\n", MaxPredictionDiff/10) + "app : ok=1 changed=1\n"
	preds := []Prediction{
		{Address: "app", Operation: "Standard.configure", Status: PredictionChecked, ChangedTasks: 1, Output: "PLAY [x] ***\nTASK [t] ***\n+new\nok: [h]\nchanged: [h]\n"},
		{Address: "app", Operation: "Standard.start", Status: PredictionNotChecked, Reason: "a task sets check_mode: false", ChangedTasks: -1, Output: "ignored"},
		{Address: "app", Operation: "Standard.stop", Status: PredictionFailed, Reason: "exit status 2", ChangedTasks: -1, Output: long},
	}
	var buf bytes.Buffer
	if err := JSONWithPredictions(&buf, p, preds); err != nil {
		t.Fatal(err)
	}
	var got struct {
		FormatVersion string           `json:"format_version"`
		Predictions   []map[string]any `json:"check_predictions"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, buf.String())
	}
	if got.FormatVersion != "1.3" || len(got.Predictions) != 3 {
		t.Fatalf("version %q, %d predictions: %s", got.FormatVersion, len(got.Predictions), buf.String())
	}
	checked, skipped, failed := got.Predictions[0], got.Predictions[1], got.Predictions[2]
	if checked["status"] != "checked" || checked["changed_tasks"] != float64(1) || checked["diff"] != "TASK [t] ***\n+new\nchanged: [h]\n" || checked["diff_truncated"] != false {
		t.Errorf("checked: %v", checked)
	}
	if _, ok := checked["reason"]; ok {
		t.Errorf("checked has a reason: %v", checked)
	}
	if skipped["status"] != "not_checked" || skipped["reason"] != "a task sets check_mode: false" || skipped["changed_tasks"] != nil || skipped["diff"] != "" {
		t.Errorf("not checked: %v", skipped)
	}
	diff, _ := failed["diff"].(string)
	if failed["status"] != "failed" || failed["changed_tasks"] != nil || failed["diff_truncated"] != true ||
		len(diff) > MaxPredictionDiff || !strings.HasSuffix(diff, "app : ok=1 changed=1\n") || !strings.HasPrefix(diff, "+a line") {
		t.Errorf("failed: status %v changed %v truncated %v, %d bytes", failed["status"], failed["changed_tasks"], failed["diff_truncated"], len(diff))
	}

	buf.Reset()
	if err := JSON(&buf, p); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), `{"format_version":"1.2",`) || strings.Contains(buf.String(), "check_predictions") {
		t.Errorf("plan without --check: %s", buf.String())
	}
	// plan --check that found nothing to check still says so.
	buf.Reset()
	if err := JSONWithPredictions(&buf, p, []Prediction{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(buf.String(), `,"check_predictions":[]}`+"\n") {
		t.Errorf("no playbook to check: %s", buf.String())
	}
}

// The comment's check-mode section stays within the comment's limit
// however long the diffs, and its control characters are symbols.
func TestMarkdownPredictionsBounded(t *testing.T) {
	p := predictionPlan(t)
	var preds []Prediction
	for range 300 {
		preds = append(preds, Prediction{Address: "app\x1b[31m", Operation: "Standard.configure", Status: PredictionChecked, ChangedTasks: 2,
			Output: strings.Repeat("+changed line\n", 2000)})
	}
	for _, limit := range []int{0, 20_000} {
		md := Markdown(p, MarkdownOptions{Limit: limit, Predictions: preds})
		max := limit
		if max == 0 {
			max = MaxMarkdown
		}
		if len(md) > max {
			t.Errorf("limit %d: %d bytes", max, len(md))
		}
		for _, want := range []string{"#### Check mode: what the playbooks would change on their hosts (300)", "- … and 200 more",
			"The predicted changes were cut to fit in a comment;", "<summary>Show the full plan"} {
			if !strings.Contains(md, want) {
				t.Errorf("limit %d: lacks %q", max, want)
			}
		}
		if strings.Contains(md, "\x1b") {
			t.Errorf("limit %d: an escape reached the comment", max)
		}
	}
	if md := Markdown(p, MarkdownOptions{}); strings.Contains(md, "Check mode") {
		t.Errorf("a comment without --check shows a check section:\n%s", md)
	}
}
