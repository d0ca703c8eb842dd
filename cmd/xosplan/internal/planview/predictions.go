package planview

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	"github.com/xosplan/xosplan/internal/canonjson"
)

// MaxPredictionDiff bounds the diff of one prediction in the JSON plan,
// the JSON events and the pull-request comment; a longer diff keeps its
// end (where Ansible's recap is) and says it was cut.
const MaxPredictionDiff = 16 << 10

// Prediction statuses (Prediction.Status, the JSON's "status").
const (
	// PredictionChecked: the playbook ran in check mode.
	PredictionChecked = "checked"
	// PredictionNotChecked: it was not run (Reason says why).
	PredictionNotChecked = "not_checked"
	// PredictionFailed: it ran and failed, or could not start (Reason).
	PredictionFailed = "failed"
)

// Prediction is one operation's plan --check prediction as the views show
// it: plain data, already redacted by the driver that made it.
type Prediction struct {
	Address   string
	Operation string
	// Status is PredictionChecked, PredictionNotChecked or
	// PredictionFailed; Reason says why for the last two.
	Status string
	Reason string
	// ChangedTasks is the recap's changed=N; -1 when unknown.
	ChangedTasks int
	// Output is what the check-mode run printed (its diffs among it).
	Output string
}

// predictionDiff is the part of a prediction's output worth showing (the
// task headers, the diffs, the changes and the recap, not the play
// banners nor the tasks that were fine) and whether it was cut to
// MaxPredictionDiff.
func predictionDiff(out string) (string, bool) {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "PLAY") || strings.HasPrefix(l, "ok: ") {
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	s := b.String()
	if len(s) <= MaxPredictionDiff {
		return s, false
	}
	s = s[len(s)-MaxPredictionDiff:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s, true
}

// PredictionsText writes plan --check's predictions for people, under the
// plan.
func PredictionsText(w io.Writer, preds []Prediction) error {
	preds = safePredictions(preds)
	var b strings.Builder
	b.WriteString("\nCheck mode: what the playbooks would change on their hosts, as ansible-playbook --check --diff\npredicts it. A prediction: nothing was changed.\n")
	if len(preds) == 0 {
		b.WriteString("\nNo playbook to check.\n")
	}
	for _, p := range preds {
		b.WriteString("\n  # " + p.Address + ": " + p.Operation)
		switch {
		case p.Status == PredictionNotChecked:
			b.WriteString(" not checked: " + p.Reason + "\n")
			continue
		case p.Status == PredictionFailed:
			b.WriteString(" could not be checked: " + p.Reason + "\n")
		case p.ChangedTasks == 0:
			b.WriteString(" would change nothing\n")
			continue
		case p.ChangedTasks > 0:
			b.WriteString(" would change " + strconv.Itoa(p.ChangedTasks) + " task(s)\n")
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

// jsonPrediction is one entry of the JSON plan's check_predictions and of
// the "check_prediction" event.
type jsonPrediction struct {
	Address   string `json:"address"`
	Operation string `json:"operation"`
	Status    string `json:"status"`
	Reason    string `json:"reason,omitempty"`
	// ChangedTasks is null when unknown (the run failed before its recap).
	ChangedTasks  *int   `json:"changed_tasks"`
	Diff          string `json:"diff"`
	DiffTruncated bool   `json:"diff_truncated"`
}

func toJSONPrediction(p Prediction) jsonPrediction {
	j := jsonPrediction{Address: p.Address, Operation: p.Operation, Status: p.Status, Reason: p.Reason}
	if p.ChangedTasks >= 0 && p.Status != PredictionNotChecked {
		n := p.ChangedTasks
		j.ChangedTasks = &n
	}
	if p.Status != PredictionNotChecked {
		j.Diff, j.DiffTruncated = predictionDiff(p.Output)
	}
	return j
}

// appendPredictions writes the check_predictions array with o.
func appendPredictions(o *canonjson.Object, preds []jsonPrediction) {
	arr := o.Field("check_predictions").BeginArray()
	for _, p := range preds {
		po := arr.Next().BeginObject()
		po.Field("address").String(p.Address)
		po.Field("operation").String(p.Operation)
		po.Field("status").String(p.Status)
		if p.Reason != "" {
			po.Field("reason").String(p.Reason)
		}
		if p.ChangedTasks == nil {
			po.Field("changed_tasks").Null()
		} else {
			po.Field("changed_tasks").Int(int64(*p.ChangedTasks))
		}
		po.Field("diff").String(p.Diff)
		po.Field("diff_truncated").Bool(p.DiffTruncated)
		po.End()
	}
	arr.End()
}

// Predictions writes one "check_prediction" event per prediction, with
// the fields of the JSON plan's check_predictions.
func (e *Events) Predictions(preds []Prediction) error {
	for _, p := range preds {
		j := toJSONPrediction(p)
		fields := map[string]any{"address": j.Address, "operation": j.Operation, "status": j.Status,
			"changed_tasks": j.ChangedTasks, "diff": j.Diff, "diff_truncated": j.DiffTruncated}
		if j.Reason != "" {
			fields["reason"] = j.Reason
		}
		if err := e.emit("info", predictionSummary(p), "check_prediction", map[string]any{"prediction": fields}); err != nil {
			return err
		}
	}
	return nil
}

// predictionSummary is a prediction's one-line summary.
func predictionSummary(p Prediction) string {
	s := p.Address + ": " + p.Operation
	switch {
	case p.Status == PredictionNotChecked:
		return s + " not checked: " + p.Reason
	case p.Status == PredictionFailed:
		return s + " could not be checked: " + p.Reason
	case p.ChangedTasks == 0:
		return s + " would change nothing"
	case p.ChangedTasks > 0:
		return s + " would change " + strconv.Itoa(p.ChangedTasks) + " task(s)"
	}
	return s + " checked"
}

// maxReasonMarkdown bounds a reason shown in the pull-request comment.
const maxReasonMarkdown = 300

// markdownPredictions is the comment's check-mode section: one line per
// prediction (capped at maxListed) and their diffs in a collapsed block
// of at most budget bytes, cut at a line with a notice. Empty without
// --check.
func markdownPredictions(preds []Prediction, budget int) string {
	if preds == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("#### Check mode: what the playbooks would change on their hosts (" + strconv.Itoa(len(preds)) + ")\n\n")
	b.WriteString("A prediction of `ansible-playbook --check --diff`: nothing was changed.\n\n")
	var diffs strings.Builder
	for i, p := range preds {
		if i == maxListed {
			b.WriteString("- … and " + strconv.Itoa(len(preds)-maxListed) + " more\n")
			break
		}
		if len(p.Reason) > maxReasonMarkdown {
			p.Reason = truncateBytes(p.Reason[:maxReasonMarkdown], maxReasonMarkdown) + "…"
		}
		b.WriteString("- `" + p.Address + "` " + strings.TrimPrefix(predictionSummary(p), p.Address+": ") + "\n")
	}
	for _, p := range preds {
		if p.Status == PredictionNotChecked || p.ChangedTasks == 0 {
			continue
		}
		d, _ := predictionDiff(p.Output)
		diffs.WriteString("# " + p.Address + ": " + p.Operation + "\n" + d)
	}
	b.WriteString("\n")
	if diffs.Len() == 0 {
		return b.String()
	}
	text := diffs.String()
	fence := fenceFor(text)
	open := "<details><summary>Show the predicted changes</summary>\n\n" + fence + "diff\n"
	closing := fence + "\n\n</details>\n\n"
	const cut = "> [!NOTE]\n> The predicted changes were cut to fit in a comment; the JSON plan (--json-out) has them.\n\n"
	room := budget - b.Len() - len(open) - len(closing) - len(cut)
	if room <= 0 {
		return b.String() + cut
	}
	if len(text) <= room {
		return b.String() + open + text + closing
	}
	return b.String() + open + truncateBytes(text, room) + closing + cut
}

// safePredictions returns preds with every control character of what the
// human views print as a symbol (safe.go), line feeds kept.
func safePredictions(preds []Prediction) []Prediction {
	if preds == nil {
		return nil
	}
	lines := func(s string) string {
		parts := strings.Split(s, "\n")
		for i := range parts {
			parts[i] = termsafe.String(parts[i])
		}
		return strings.Join(parts, "\n")
	}
	out := make([]Prediction, len(preds))
	for i, p := range preds {
		p.Address, p.Operation, p.Reason, p.Output = termsafe.String(p.Address), termsafe.String(p.Operation), lines(p.Reason), lines(p.Output)
		out[i] = p
	}
	return out
}
