package pgcluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/state"
)

// actionWorker runs the jobs of the workspace's queue on this member.
type actionWorker struct {
	river.WorkerDefaults[actionArgs]
	c *Cluster
}

// Timeout: none; the drivers bound each operation themselves.
func (w *actionWorker) Timeout(*river.Job[actionArgs]) time.Duration { return -1 }

// refuseAgain is how soon a job this member refused is offered again
// (to any member).
const refuseAgain = time.Second

// Work runs one job: when this member's checkout is the one the job was
// planned from, its driver runs the requests and the result is reported
// to the leader (a row of xosplan_sync_result and a message); otherwise
// the job is refused, saying why, and offered to the other members.
func (w *actionWorker) Work(ctx context.Context, job *river.Job[actionArgs]) error {
	c, a := w.c, job.Args
	local, err := c.localFor(ctx, a.Digest)
	if err != nil {
		// Another member may have the checkout the job needs.
		var other *otherCheckoutError
		if errors.As(err, &other) {
			c.log.Error("refused an action: this member's checkout is not the one it was planned from",
				"addresses", a.Addresses, "action", a.Action, "planned_from", a.Digest, "here", other.have)
		} else {
			c.log.Error("refused an action", "addresses", a.Addresses, "action", a.Action, "error", err.Error())
		}
		_ = c.notify(ctx, message{Type: msgRefused, Job: job.ID, Member: c.member, Reason: err.Error()})
		return river.JobSnooze(refuseAgain)
	}
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		// Stopped (the leader cancelled it, or this member stops) before
		// it started: it is reported as not run.
		return c.report(ctx, job.ID, a, c.failAll(a, fmt.Errorf("%w: %w", executor.ErrInterrupted, ctx.Err())))
	}
	// The leader learns who runs the job from the processes it starts
	// (their message), else from River's record of the job within a few
	// seconds (findMembers): a message per job would cost every member a
	// notification per action.
	c.mu.Lock()
	c.working[job.ID] = a.Addresses
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.working, job.ID)
		c.mu.Unlock()
	}()
	outs := c.runJob(ctx, job.ID, a, local)
	// The slot goes to the next action while this one is reported.
	<-c.slots
	return c.report(ctx, job.ID, a, outs)
}

// report stores a job's results for the leader and tells it. The row is
// committed before Work returns, so before River records the job as
// completed: a job that River completed always has its result stored,
// and an action that ran is never lost with the leader that waited for
// it (a later leader that plans it again finds its result by its key:
// Cluster.insertBatch). The transaction holds the workspace's results lock
// that the leader's inserts take, so that a leader either finds the
// result or finds the job still running, never neither.
func (c *Cluster) report(ctx context.Context, id int64, a actionArgs, outs []json.RawMessage) error {
	data, err := json.Marshal(outs)
	if err != nil {
		return fmt.Errorf("encoding the results of %v: %w", a.Addresses, err)
	}
	if h := c.hooks.Load(); h != nil && h.beforeReport != nil {
		h.beforeReport(id, a.Addresses)
	}
	key := a.Key
	if interrupted(outs) {
		key = ""
	}
	// The result is reported even when the job's context ended (the
	// leader cancelled it, or this member stops): its driver stopped the
	// operation and says so.
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	// One statement, one transaction: the message goes out when the row
	// is committed, and the lock is held from before the row is written.
	payload, _ := json.Marshal(message{Type: msgDone, Job: id, Member: c.member})
	// Tried again until the bound: a job whose Work fails is run again by
	// River, so a result not stored costs the action a second run.
	for try := 0; ; try++ {
		_, err = c.pool.Exec(bg, `WITH locked AS (SELECT pg_advisory_xact_lock(hashtext('xosplan:results:' || $2))),
		stored AS (
			INSERT INTO xosplan_sync_result (job_id, workspace, member, result, action_key) SELECT $1, $2, $3, $4, $5 FROM locked
			ON CONFLICT (job_id) DO UPDATE SET member = $3, result = $4, action_key = $5 RETURNING job_id)
		SELECT pg_notify($6, $7) FROM stored`, id, a.Workspace, c.member, data, key, c.channel, string(payload))
		if err == nil || bg.Err() != nil {
			break
		}
		select {
		case <-bg.Done():
		case <-time.After(time.Duration(try+1) * 500 * time.Millisecond):
		}
	}
	if err != nil {
		return c.fail(fmt.Sprintf("reporting the result of %v", a.Addresses), err)
	}
	c.log.Info("ran an action", "addresses", strings.Join(a.Addresses, ","), "action", a.Action, "job", id)
	return nil
}

// actionKey names an action by what it does: the action, and each
// request's address, desired resource, resolved values and inputs (the
// records of its prior state, which a crash marks interrupted, are left
// out). A leader that plans the action again after a former leader died
// finds the result of the run that former leader handed out by it. The
// leader computes it from its own encoding and the job carries it (the
// job's arguments come back from River re-encoded).
func actionKey(action string, reqs []wireRequest) string {
	type keyed struct {
		Address  string                                `json:"a"`
		Resource json.RawMessage                       `json:"r,omitempty"`
		Resolved map[string]json.RawMessage            `json:"v,omitempty"`
		Inputs   map[string]map[string]json.RawMessage `json:"i,omitempty"`
	}
	parts := make([]keyed, len(reqs))
	for i, r := range reqs {
		parts[i] = keyed{Address: r.Address, Resource: r.Resource, Resolved: r.Resolved, Inputs: r.Inputs}
	}
	data, _ := json.Marshal(struct {
		Action string  `json:"action"`
		Parts  []keyed `json:"parts"`
	}{action, parts}) // raw JSON and strings always marshal
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// interrupted reports whether an outcome of outs says its operation was
// stopped before it ended: such a result is no outcome to use again.
func interrupted(outs []json.RawMessage) bool {
	for _, o := range outs {
		var w wireOutcome
		if json.Unmarshal(o, &w) != nil || w.Interrupted {
			return true
		}
	}
	return false
}

// encodedOutcome is one request's outcome as a job's result holds it.
func encodedOutcome(out executor.Outcome, err error) json.RawMessage {
	data, encErr := encodeOutcome(out, err)
	if encErr != nil {
		data, _ = encodeOutcome(executor.Outcome{}, encErr)
	}
	return data
}

// failAll is the result of a job none of whose requests ran.
func (c *Cluster) failAll(a actionArgs, err error) []json.RawMessage {
	outs := make([]json.RawMessage, len(a.Requests))
	for i := range outs {
		outs[i] = encodedOutcome(executor.Outcome{}, err)
	}
	return outs
}

// runJob runs a job's requests with this member's driver and returns one
// encoded outcome per request.
func (c *Cluster) runJob(ctx context.Context, id int64, a actionArgs, local *Local) []json.RawMessage {
	outs := make([]json.RawMessage, len(a.Requests))
	report := func(i int, out executor.Outcome, err error) { outs[i] = encodedOutcome(out, err) }
	failAll := func(err error) []json.RawMessage { return c.failAll(a, err) }
	drv, ok := local.Drivers.Lookup(a.Driver)
	if !ok {
		return failAll(fmt.Errorf("member %s has no %s driver", c.member, a.Driver))
	}
	reqs := make([]executor.Request, len(a.Requests))
	for i, wr := range a.Requests {
		req, err := wr.decode(c.opts.WorkDir)
		if err != nil {
			return failAll(fmt.Errorf("member %s cannot read the action: %w", c.member, err))
		}
		req.Started = func(p state.Process) {
			// Told before the driver goes on (the process runs meanwhile),
			// so that the message is committed, and heard, before the
			// result's.
			nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_ = c.notify(nctx, message{Type: msgStarted, Job: id, Member: c.member, Index: i,
				PID: p.PID, PGID: p.PGID, Start: p.Start})
		}
		reqs[i] = req
	}
	if sem := c.perDriver[a.Driver]; sem != nil {
		select {
		case sem <- struct{}{}:
			defer func() { <-sem }()
		case <-ctx.Done():
			return failAll(fmt.Errorf("%w: %w", executor.ErrInterrupted, ctx.Err()))
		}
	}
	if b, ok := drv.(executor.BatchDriver); ok && len(reqs) > 1 {
		for i, r := range b.LaunchBatch(ctx, reqs) {
			report(i, r.Outcome, r.Err)
		}
		return outs
	}
	for i, req := range reqs {
		out, err := callSafely(ctx, drv, req)
		report(i, out, err)
	}
	return outs
}

// callSafely calls the driver; a panic is the action's failure, not the
// member's end.
func callSafely(ctx context.Context, d executor.Driver, req executor.Request) (out executor.Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the %s driver failed: %v", req.Action, r)
		}
	}()
	return d.Apply(ctx, req)
}

// splitResults reads a member's report: one outcome per request.
func splitResults(data []byte) ([][]byte, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("a member's result does not decode: %w", err)
	}
	out := make([][]byte, len(raw))
	for i, r := range raw {
		out[i] = r
	}
	return out, nil
}

// otherCheckoutError: this member's configuration is not the one a job
// was planned from.
type otherCheckoutError struct {
	have, want string
}

func (e *otherCheckoutError) Error() string {
	return fmt.Sprintf("the configuration of this member's checkout is %s, the action was planned from %s: "+
		"a member runs only the scripts the plan was made from (update its checkout)", e.have, e.want)
}

// localFor returns this member's drivers when its configuration's digest
// is want (any, for ""), compiling it again first when it may have
// changed (a file event said so, or the last compile is a few seconds
// old and want is another).
func (c *Cluster) localFor(ctx context.Context, want string) (*Local, error) {
	c.localMu.Lock()
	defer c.localMu.Unlock()
	if c.local != nil && c.local.Digest == want && !c.localDirty {
		return c.local, nil
	}
	if c.local == nil || c.localDirty || time.Since(c.localAt) > 3*time.Second {
		l, err := c.opts.Local(ctx)
		if err != nil {
			return nil, fmt.Errorf("member %s cannot compile its configuration: %w", c.member, err)
		}
		c.local, c.localAt, c.localDirty = &l, time.Now(), false
		c.checkoutChanged(ctx, l.Digest)
	}
	if want != "" && c.local.Digest != want {
		return nil, &otherCheckoutError{have: c.local.Digest, want: want}
	}
	return c.local, nil
}

// adopt makes l this member's local configuration: the leader's goal,
// compiled by its engine, is its checkout.
func (c *Cluster) adopt(l Local) {
	c.localMu.Lock()
	defer c.localMu.Unlock()
	c.local, c.localAt, c.localDirty = &l, time.Now(), false
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c.checkoutChanged(ctx, l.Digest)
}
