package scripted

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/redact"
	"github.com/xosplan/xosplan/pkg/state"
)

// feedback is the target's instance model as feedback (instanceModel.feedback),
// with its command invocations (driver.AttrCommands) carried over from the
// recorded ones and settled by the results this run reported: the command
// it invokes is recorded, pending until a final result arrives, and any
// script that reports a final result under the id of a pending invocation
// completes it (the Tonomi document's asynchronous commands: a health
// check delivers what the command script left for later).
func (t *target) feedback(mappings map[string]map[string]string, now time.Time) state.Feedback {
	fb := t.model.feedback(t.natural, mappings)
	var invs []driver.Invocation
	if t.req.Prior != nil {
		invs = driver.Invocations(t.req.Prior.Feedback.Attributes)
	}
	if t.commandID != "" {
		invs = append(invs, driver.Invocation{ID: t.commandID, Command: t.command, Status: driver.InvocationPending, Started: now})
	}
	for i := range invs {
		rs, ok := t.pushed[invs[i].ID]
		if ok && t.req.Redactor != nil {
			rs = redactResults(t.req.Redactor, rs)
		}
		if !ok || !invs[i].Settle(rs, now) {
			continue
		}
		if invs[i].Status == driver.InvocationCompleted && invs[i].ID != t.commandID && t.req.Output != nil {
			b, _ := json.Marshal(invs[i].Result)
			t.req.Output(fmt.Sprintf("command %s (%s) completed: %s", invs[i].Command, invs[i].ID, b))
		}
	}
	if v := driver.InvocationsValue(invs); v != nil {
		if fb.Attributes == nil {
			fb.Attributes = map[string]graph.Value{}
		}
		fb.Attributes[driver.AttrCommands] = v
	}
	return fb
}

// notePushed keeps the command results an update appended, by command id,
// for feedback to settle the invocations they answer.
func (t *target) notePushed(u update, pushed []graph.Value) {
	if u.op != opPushAll || len(u.path) != 2 || u.path[0] != "commands" {
		return
	}
	if t.pushed == nil {
		t.pushed = map[string][]driver.CommandResult{}
	}
	for _, r := range pushed {
		m, _ := r.(map[string]graph.Value)
		t.pushed[u.path[1]] = append(t.pushed[u.path[1]], commandResult(m))
	}
}

// redactResults returns results with the secrets of the run removed from
// every string they hold: the record, the API and the activity log show
// what is recorded.
func redactResults(red *redact.Redactor, results []driver.CommandResult) []driver.CommandResult {
	out := make([]driver.CommandResult, len(results))
	for i, r := range results {
		v, _ := redactValue(red, r.Values).(map[string]graph.Value)
		out[i] = driver.CommandResult{Intermediate: r.Intermediate, Values: v}
	}
	return out
}

func redactValue(red *redact.Redactor, v graph.Value) graph.Value {
	switch x := v.(type) {
	case string:
		return red.String(x)
	case map[string]graph.Value:
		out := make(map[string]graph.Value, len(x))
		for k, e := range x {
			out[k] = redactValue(red, e)
		}
		return out
	case []graph.Value:
		out := make([]graph.Value, len(x))
		for i, e := range x {
			out[i] = redactValue(red, e)
		}
		return out
	}
	return v
}
