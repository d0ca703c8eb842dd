package sync

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// EventCommand: a script reported results of a command invocation of
// Address that was pending (a health check completing an asynchronous
// command); Message says which and what.
const EventCommand = "command"

// CommandStatus is one recorded command invocation of a resource
// (executor.AttrCommands) in a ResourceStatus.
type CommandStatus struct {
	ID           string                   `json:"id"`
	Command      string                   `json:"command"`
	Status       string                   `json:"status"`
	Started      *time.Time               `json:"started,omitempty"`
	Completed    *time.Time               `json:"completed,omitempty"`
	Intermediate []map[string]graph.Value `json:"intermediate,omitempty"`
	Result       map[string]graph.Value   `json:"result,omitempty"`
}

// commandsOf lists the command invocations recorded for r, oldest first.
func commandsOf(r *state.Resource) []CommandStatus {
	invs := executor.Invocations(r.Feedback.Attributes)
	if len(invs) == 0 {
		return nil
	}
	out := make([]CommandStatus, 0, len(invs))
	for _, inv := range invs {
		out = append(out, CommandStatus{ID: inv.ID, Command: inv.Command, Status: inv.Status, Started: timePtr(inv.Started),
			Completed: timePtr(inv.Completed), Intermediate: inv.Intermediate, Result: inv.Result})
	}
	return out
}

// commandPaths splits the paths of a drift into those of the command
// invocations (attributes.commands…) and the rest: a script that reports
// the result of a command changes the record, not the object.
func commandPaths(paths []string) (cmds, rest []string) {
	prefix := "attributes." + executor.AttrCommands
	for _, p := range paths {
		if p == prefix || strings.HasPrefix(p, prefix+".") {
			cmds = append(cmds, p)
		} else {
			rest = append(rest, p)
		}
	}
	return cmds, rest
}

// commandEvents describes what a check changed in the invocations of d's
// resource: each one that completed or got intermediate results.
func commandEvents(d planner.ResourceDrift) []Event {
	attrs := func(m map[string]graph.Value) map[string]graph.Value {
		a, _ := m["attributes"].(map[string]graph.Value)
		return a
	}
	before := map[string]executor.Invocation{}
	for _, inv := range executor.Invocations(attrs(d.Before)) {
		before[inv.ID] = inv
	}
	var out []Event
	for _, inv := range executor.Invocations(attrs(d.After)) {
		was, ok := before[inv.ID]
		switch {
		case inv.Status == executor.InvocationCompleted && (!ok || was.Status != executor.InvocationCompleted):
			out = append(out, Event{Type: EventCommand, Address: d.Address,
				Message: fmt.Sprintf("%s (%s) completed: %s", inv.Command, inv.ID, jsonText(inv.Result))})
		case len(inv.Intermediate) > len(was.Intermediate):
			out = append(out, Event{Type: EventCommand, Address: d.Address,
				Message: fmt.Sprintf("%s (%s) is pending: %s", inv.Command, inv.ID, jsonText(inv.Intermediate[len(inv.Intermediate)-1]))})
		}
	}
	return out
}

// jsonText is v as JSON (keys sorted).
func jsonText(v map[string]graph.Value) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	return string(b)
}
