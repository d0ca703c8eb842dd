package sync

import (
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
)

// EventScriptFailed: a script failed — an action or the health check of
// a component that has a factory (a Tonomi scripted component), or a
// factory's discovery. As the Tonomi document has the factory log every
// failed script invocation, the failure goes to the activity log of the
// factory (Address) as well as the component's; Message names the
// component and the error.
const EventScriptFailed = "script_failed"

// noteApplyFailure reports an apply action of a component that failed in
// the activity log of its factory (the component's own has the action's
// event).
func (e *Engine) noteApplyFailure(ev executor.Event) {
	if ev.Type != executor.EventErrored && ev.Type != executor.EventRetry {
		return
	}
	if f := e.factoryOf(ev.Address); f != "" {
		e.emit(Event{Type: EventScriptFailed, Address: f, Message: ev.Address + ": " + ev.Action + ": " + ev.Error})
	}
}

// noteCheckFailure reports a check (by: "health check", or "discovery"
// of the factory) that found a component failed, in its activity log and
// its factory's.
func (e *Engine) noteCheckFailure(d planner.ResourceDrift, by string) {
	st, _ := d.After["status"].(map[string]graph.Value)
	if failed, _ := st["failed"].(bool); !failed {
		return
	}
	f := e.factoryOf(d.Address)
	if f == "" {
		return
	}
	msg := by + ": the instance failed"
	if m, _ := st["message"].(string); m != "" {
		msg = by + ": " + m
	}
	e.emit(Event{Type: EventScriptFailed, Address: d.Address, Message: msg})
	e.emit(Event{Type: EventScriptFailed, Address: f, Message: d.Address + ": " + msg})
}

// factoryOf returns the address of the factory of the component at addr,
// as configured or else as recorded; "" for none.
func (e *Engine) factoryOf(addr string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.goal != nil {
		if r, ok := e.goal.Desired.Resource(addr); ok {
			f, _ := r.Driver.Options[executor.OptionFactoryAddress].(string)
			return f
		}
	}
	if e.recorded != nil {
		if r, ok := e.recorded.Lookup(addr); ok {
			f, _ := r.Driver.Options[executor.OptionFactoryAddress].(string)
			return f
		}
	}
	return ""
}
