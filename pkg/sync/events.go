package sync

import (
	"fmt"
	stdsync "sync"
	"time"

	"github.com/xosplan/xosplan/pkg/executor"
)

// Event types besides the apply walk's (EventApply carries those).
const (
	// EventApply: an event of an apply's walk (Apply), as `apply --json`
	// prints it.
	EventApply = "apply"
	// EventReconcileStart: a reconcile begins; Message says why.
	EventReconcileStart = "reconcile_start"
	// EventReconcileEnd: a reconcile ended with Outcome (Report, when
	// something ran; Message, the error).
	EventReconcileEnd = "reconcile_end"
	// EventDrift: a health check found Address changed outside xosplan.
	EventDrift = "drift"
	// EventDiscovery: the factory Address ran its discovery; Count
	// instances it found are not managed by xosplan.
	EventDiscovery = "discovery"
	// EventHeld: an error of the configuration holds Address (Message
	// names it): it and what depends on it wait for a fix, and the other
	// resources are reconciled.
	EventHeld = "held"
	// EventResync: Address was saved without change (Engine.Resync); the
	// reconcile that follows actuates it again.
	EventResync = "resync"
)

// Event is one thing the engine did or saw.
type Event struct {
	Type    string
	Time    time.Time
	Address string
	Message string
	// Outcome is a reconcile's (Outcome* constants).
	Outcome string
	// Count is discovery's number of unmanaged instances.
	Count   int
	Elapsed time.Duration
	Apply   *executor.Event
	Report  *executor.Report
}

// Activity is one entry of a resource's activity log.
type Activity struct {
	Time    time.Time `json:"time"`
	Type    string    `json:"type"`
	Message string    `json:"message,omitempty"`
}

func (ev Event) activity() Activity {
	a := Activity{Time: ev.Time, Type: ev.Type, Message: ev.Message}
	if x := ev.Apply; x != nil {
		a.Type = x.Type
		a.Message = x.Action
		switch {
		case x.Error != "":
			a.Message += ": " + x.Error
		case x.Cause != "":
			a.Message += ": waits for " + x.Cause
		case x.Line != "":
			a.Message += ": " + x.Line
		case x.Attempt > 1:
			a.Message += fmt.Sprintf(" (attempt %d)", x.Attempt)
		}
	}
	return a
}

// subscriberBuffer is how many events a slow subscriber may lag behind
// before it misses some.
const subscriberBuffer = 256

// broker passes events to subscribers without ever blocking the engine.
type broker struct {
	mu   stdsync.Mutex
	subs map[chan Event]bool
}

// Subscribe returns a channel of the engine's events from now on, and
// the function that ends the subscription. A subscriber that falls more
// than a few hundred events behind misses the ones it could not take.
func (e *Engine) Subscribe() (<-chan Event, func()) {
	ch := make(chan Event, subscriberBuffer)
	e.events.mu.Lock()
	if e.events.subs == nil {
		e.events.subs = map[chan Event]bool{}
	}
	e.events.subs[ch] = true
	e.events.mu.Unlock()
	return ch, func() {
		e.events.mu.Lock()
		delete(e.events.subs, ch)
		e.events.mu.Unlock()
	}
}

func (b *broker) publish(ev Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}
