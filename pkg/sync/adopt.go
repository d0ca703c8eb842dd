package sync

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/xosplan/xosplan/pkg/executor"
)

// EventAdopt: Address was adopted (Adopt): the object Message names is
// recorded as it.
const EventAdopt = "adopt"

// maxPendingAdopts bounds the adoptions waiting for the engine.
const maxPendingAdopts = 8

// Errors of Adopt besides executor.Import's; compare with errors.Is.
var (
	// ErrBusy: too many adoptions wait already.
	ErrBusy = errors.New("too many adoptions are waiting; try again")
	// ErrNoGoal: the configuration has not compiled yet, so nothing says
	// what the object would be.
	ErrNoGoal = errors.New("the configuration has not compiled; adopt once it does")
)

// adoptRequest is one adoption waiting for the engine's loop.
type adoptRequest struct {
	addr, id string
	done     chan error
}

// Adopt adopts the existing object id (a factory's discovered instance)
// as the configured resource addr, as `xosplan import` does
// (executor.Import): when the engine is free it confirms the object,
// records it with the configured spec as enacted, drops it from its
// factory's discovered instances, and reconciles. It returns Import's
// errors (executor.ErrNotConfigured, ErrAlreadyRecorded, ErrNotImportable,
// ErrNotConfirmed), ErrNoGoal, ErrBusy, or ctx's when ctx ends first; the
// adoption asked for still runs then.
func (e *Engine) Adopt(ctx context.Context, addr, id string) error {
	req := &adoptRequest{addr: addr, id: id, done: make(chan error, 1)}
	e.mu.Lock()
	if len(e.adopts) >= maxPendingAdopts {
		e.mu.Unlock()
		return ErrBusy
	}
	e.adopts = append(e.adopts, req)
	e.mu.Unlock()
	e.signal()
	select {
	case err := <-req.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// runAdopts runs the adoptions asked for, one at a time.
func (e *Engine) runAdopts(ctx context.Context) {
	e.mu.Lock()
	reqs := e.adopts
	e.adopts = nil
	e.mu.Unlock()
	for _, r := range reqs {
		if ctx.Err() != nil {
			r.done <- ctx.Err()
			continue
		}
		r.done <- e.adopt(ctx, r.addr, r.id)
	}
}

// adopt imports id as addr into the state, as `xosplan import` does.
func (e *Engine) adopt(ctx context.Context, addr, id string) error {
	e.mu.Lock()
	goal := e.goal
	e.mu.Unlock()
	if goal == nil {
		return ErrNoGoal
	}
	st, err := e.opts.Store.Read(ctx)
	if err != nil {
		return fmt.Errorf("reading the state: %w", err)
	}
	wd := e.opts.WorkDir
	if wd == "" {
		wd, _ = os.Getwd()
	}
	rec, err := executor.Import(ctx, goal.Desired, st, addr, id, goal.Drivers, executor.ImportOptions{
		ScriptRoot: goal.ScriptRoot, WorkDir: wd, Timeout: e.opts.Timeout, Now: e.opts.Clock.Now})
	if err != nil {
		return err
	}
	executor.RecordImport(st, rec, id)
	if err := e.opts.Store.Write(context.WithoutCancel(ctx), st); err != nil {
		return fmt.Errorf("recording the adoption: %w", err)
	}
	after, err := e.load(context.WithoutCancel(ctx))
	if err != nil {
		return err
	}
	now := e.opts.Clock.Now()
	e.track(after, now)
	e.emit(Event{Type: EventAdopt, Address: addr, Message: "adopted " + id})
	e.opts.Logger.Info("adopted", "address", addr, "id", id)
	e.mu.Lock()
	e.reasons["adopt"] = true
	e.mu.Unlock()
	return nil
}
