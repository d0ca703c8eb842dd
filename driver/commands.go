package driver

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
)

// AttrCommands is the attribute under which a driver that runs custom
// commands (an Invoker) records its invocations, keyed by command id:
//
//	{"command": "control.backup", "status": "pending" | "completed",
//	 "started": RFC 3339, "completed": RFC 3339,
//	 "intermediate": [{…}, …], "result": {…}}
//
// An invocation whose script reported no final result stays pending until
// a later script of the same resource (a health check, typically, as the
// Tonomi document allows for asynchronous commands) reports one under its
// command id; it is then completed, with that result.
const AttrCommands = "commands"

// Statuses of an Invocation.
const (
	InvocationPending   = "pending"
	InvocationCompleted = "completed"
)

// Bounds on what AttrCommands keeps: the latest invocations (command ids
// sort by time) and, of each, the latest intermediate results.
const (
	MaxInvocations         = 50
	MaxIntermediateResults = 20
)

// Invocation is one recorded command invocation (see AttrCommands).
type Invocation struct {
	ID        string
	Command   string
	Status    string
	Started   time.Time
	Completed time.Time
	// Intermediate holds the results reported with "$intermediate: true",
	// oldest first; Result the final one (nil while pending).
	Intermediate []map[string]graph.Value
	Result       map[string]graph.Value
}

// Invocations reads the invocations recorded in attrs[AttrCommands],
// sorted by id (by time, for ids xosplan made). Entries of another shape
// are left out.
func Invocations(attrs map[string]graph.Value) []Invocation {
	rec, _ := attrs[AttrCommands].(map[string]graph.Value)
	out := make([]Invocation, 0, len(rec))
	for _, id := range slices.Sorted(maps.Keys(rec)) {
		m, ok := rec[id].(map[string]graph.Value)
		if !ok {
			continue
		}
		inv := Invocation{ID: id}
		inv.Command, _ = m["command"].(string)
		inv.Status, _ = m["status"].(string)
		inv.Started = parseTime(m["started"])
		inv.Completed = parseTime(m["completed"])
		list, _ := m["intermediate"].([]graph.Value)
		for _, r := range list {
			if rm, ok := r.(map[string]graph.Value); ok {
				inv.Intermediate = append(inv.Intermediate, rm)
			}
		}
		inv.Result, _ = m["result"].(map[string]graph.Value)
		out = append(out, inv)
	}
	return out
}

// FindInvocation returns the invocation id recorded in attrs.
func FindInvocation(attrs map[string]graph.Value, id string) (Invocation, bool) {
	for _, inv := range Invocations(attrs) {
		if inv.ID == id {
			return inv, true
		}
	}
	return Invocation{}, false
}

func parseTime(v graph.Value) time.Time {
	s, _ := v.(string)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Value is the invocation as AttrCommands records it.
func (inv Invocation) Value() graph.Value {
	m := map[string]graph.Value{"command": inv.Command, "status": inv.Status}
	if !inv.Started.IsZero() {
		m["started"] = inv.Started.UTC().Format(time.RFC3339)
	}
	if !inv.Completed.IsZero() {
		m["completed"] = inv.Completed.UTC().Format(time.RFC3339)
	}
	if len(inv.Intermediate) > 0 {
		list := make([]graph.Value, len(inv.Intermediate))
		for i, r := range inv.Intermediate {
			list[i] = r
		}
		m["intermediate"] = list
	}
	if inv.Result != nil {
		m["result"] = inv.Result
	}
	return m
}

// InvocationsValue is invs as AttrCommands records them, the latest
// MaxInvocations only; nil for none.
func InvocationsValue(invs []Invocation) graph.Value {
	if len(invs) == 0 {
		return nil
	}
	invs = slices.Clone(invs)
	slices.SortFunc(invs, func(a, b Invocation) int { return cmp.Compare(a.ID, b.ID) })
	if len(invs) > MaxInvocations {
		invs = invs[len(invs)-MaxInvocations:]
	}
	m := make(map[string]graph.Value, len(invs))
	for _, inv := range invs {
		m[inv.ID] = inv.Value()
	}
	return m
}

// Settle adds the results a script reported under a command id to the
// pending invocation of that id: intermediate ones (the latest
// MaxIntermediateResults kept), and the first final one, which completes
// it at now. Results for an id that names no invocation, or one already
// completed, are ignored. It reports whether inv changed.
func (inv *Invocation) Settle(results []CommandResult, now time.Time) bool {
	if inv.Status == InvocationCompleted {
		return false
	}
	changed := false
	for _, r := range results {
		if r.Intermediate {
			inv.Intermediate = append(inv.Intermediate, r.Values)
			if len(inv.Intermediate) > MaxIntermediateResults {
				inv.Intermediate = inv.Intermediate[len(inv.Intermediate)-MaxIntermediateResults:]
			}
			changed = true
			continue
		}
		inv.Result, inv.Status, inv.Completed = r.Values, InvocationCompleted, now
		return true
	}
	return changed
}
