package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/state"
	xsync "github.com/xosplan/xosplan/pkg/sync"
)

// actionArgs is the job of one action (or one batch of actions a
// BatchDriver serves with one call): the requests and the digest of the
// configuration the leader planned them from. Its unique key is the
// workspace, the addresses, the action, the digest and the generation:
// a leader that takes over from one that died hands out the very job
// still running (River answers with the job that holds the key), and a
// job handed out again because its member died gets the next generation.
type actionArgs struct {
	Workspace  string   `json:"workspace" river:"unique"`
	Addresses  []string `json:"addresses" river:"unique"`
	Action     string   `json:"action" river:"unique"`
	Digest     string   `json:"digest" river:"unique"`
	Generation int      `json:"generation" river:"unique"`
	// Key is the action's key (actionKey), which its result is stored
	// under.
	Key      string        `json:"key"`
	Driver   string        `json:"driver"`
	Leader   string        `json:"leader"`
	Requests []wireRequest `json:"requests"`
}

// Kind names the job kind in River's tables.
func (actionArgs) Kind() string { return "xosplan_action" }

// uniqueStates are the states in which a job holds its key: completed and
// cancelled ones do not, so that the next reconcile may run the action
// again.
var uniqueStates = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
	rivertype.JobStateRunning, rivertype.JobStateRetryable, rivertype.JobStateScheduled}

// call is an action the leader handed out and waits for.
type call struct {
	digest string
	addrs  []string
	reqs   []executor.Request
	// member runs it (set by its started message); since is when the
	// job was handed out.
	member  string
	started time.Time
	since   time.Time
	refused map[string]bool
	// mu orders the walk's process records with its end: a process the
	// member reports is recorded (a repeated intent) only while the call
	// has not returned, never after its outcome.
	mu       sync.Mutex
	finished bool
	// done receives the result; gone says why the job will bring none
	// (the member running it died, River finished it without one);
	// unwanted that every live member refused it.
	done     chan []byte
	gone     chan string
	unwanted chan string
}

// Dispatch returns the drivers the leader's apply walks run with: each
// hands its actions to the members (River jobs in the queue of the
// workspace and the checkout g was compiled from), with the digest of
// that configuration, and waits for the result; and how many actions the
// walk hands out at once: twice as many as the members run together,
// so that a member that finishes an action finds the next one queued
// rather than waiting for the leader's journal and the queue's round
// trips (the intents of the queued ones say so: their start comes in a
// repeated intent naming the member). It implements sync.Cluster.
func (c *Cluster) Dispatch(g *xsync.Goal) (executor.Registry, int) {
	c.clearTaken()
	digest := xsync.CheckoutDigest(g)
	c.adopt(Local{Drivers: g.Drivers, Digest: digest})
	out := make(executor.Registry, len(g.Drivers))
	for name, d := range g.Drivers {
		out[name] = &remote{c: c, name: name, local: d, digest: digest}
	}
	capacity := c.capacity()
	return out, 2 * capacity
}

// clearTaken removes the results this member's earlier walks took: a
// walk starts when the one before has recorded what it took in the
// journal (and folded it into the snapshot). From the second walk of a
// term on, so go those that former leaders took: the first walk planned
// from the state they left, and used any it needed again.
func (c *Cluster) clearTaken() {
	c.mu.Lock()
	first := c.walks == 0
	c.walks++
	for id, at := range c.delivered {
		if time.Since(at) > 10*time.Minute {
			delete(c.delivered, id)
		}
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.pool.Exec(ctx, `DELETE FROM xosplan_sync_result WHERE workspace = $1 AND taken_by <> '' AND (taken_by = $2 OR NOT $3)`,
		c.opts.Workspace, c.member, first); err != nil {
		c.log.Warn("results already recorded were not removed", "error", c.fail("removing results", err).Error())
	}
}

// remote is a driver whose actions run at the members.
type remote struct {
	c      *Cluster
	name   string
	local  executor.Driver
	digest string
}

var _ executor.BatchDriver = (*remote)(nil)

func (r *remote) Apply(ctx context.Context, req executor.Request) (executor.Outcome, error) {
	res := r.c.dispatch(ctx, r.name, r.digest, []executor.Request{req})
	return res[0].Outcome, res[0].Err
}

// BatchKey is the local driver's: a batch goes to one member as one job.
func (r *remote) BatchKey(req executor.Request) string {
	if b, ok := r.local.(executor.BatchDriver); ok {
		return b.BatchKey(req)
	}
	return ""
}

func (r *remote) LaunchBatch(ctx context.Context, reqs []executor.Request) []executor.BatchResult {
	return r.c.dispatch(ctx, r.name, r.digest, reqs)
}

// dispatch hands reqs out as one job and waits for its result: until a
// member reports it, or ctx ends (the job is then cancelled, which stops
// it where it runs). A job whose member died is handed out again; one
// that every live member refused fails. An action that a former leader
// handed out and that ran to its end is not run again: its result, found
// by the action's key, is the call's.
func (c *Cluster) dispatch(ctx context.Context, driver, digest string, reqs []executor.Request) []executor.BatchResult {
	results := make([]executor.BatchResult, len(reqs))
	fail := func(err error) []executor.BatchResult {
		for i := range results {
			results[i].Err = err
		}
		return results
	}
	args, err := c.jobArgs(driver, digest, reqs)
	if err != nil {
		return fail(err)
	}
	what := strings.Join(args.Addresses, ", ")
	key := args.Key
	for {
		cl := &call{digest: digest, since: time.Now(), addrs: args.Addresses, reqs: reqs, refused: map[string]bool{},
			done: make(chan []byte, 1), gone: make(chan string, 1), unwanted: make(chan string, 1)}
		ins, err := c.insert(ctx, args, key, &river.InsertOpts{Queue: c.queueFor(digest), MaxAttempts: 10,
			UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: uniqueStates}})
		if err != nil {
			if ctx.Err() != nil {
				return fail(fmt.Errorf("%s: %w", what, context.Cause(ctx)))
			}
			return fail(c.fail("handing "+what+" to the cluster", err))
		}
		if ins.ran != nil {
			c.log.Info("an action handed out before ran to its end; its result is used rather than running it again",
				"address", what, "job", ins.ran.job, "member", ins.ran.member)
			return decodeResults(ins.ran.data, results)
		}
		res := ins.res
		id := res.Job.ID
		if res.UniqueSkippedAsDuplicate && c.wasDelivered(id) {
			// The job of this action's last run, whose result a call took
			// already: River has not recorded its completion yet.
			args.Generation++
			continue
		}
		if res.UniqueSkippedAsDuplicate && res.Job.State == rivertype.JobStateRunning && len(res.Job.AttemptedBy) > 0 {
			// A former leader handed this action out and a member runs it
			// still: wait for it, and hand it out again should that member
			// die (it reported its start to the former leader).
			cl.member, cl.started = res.Job.AttemptedBy[len(res.Job.AttemptedBy)-1], time.Now()
			c.log.Info("an action a former leader handed out is still running; waiting for it", "address", what, "member", cl.member)
		}
		c.register(id, cl)
		// A job a former leader handed out may have finished already.
		c.poke()
		var data []byte
		select {
		case data = <-cl.done:
		case <-ctx.Done():
			c.forget(id)
			c.cancelJob(id)
			return fail(fmt.Errorf("%s: %w", what, context.Cause(ctx)))
		case why := <-cl.gone:
			// A member may store its result and die before River records
			// the job's end: the result is the call's.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			c.collect(cctx, []int64{id})
			cancel()
			select {
			case data = <-cl.done:
				c.forget(id)
				cl.finish()
				return decodeResults(data, results)
			default:
			}
			c.forget(id)
			c.cancelJob(id)
			c.log.Warn("an action's job will bring no result; handing it out again", "address", what, "member", cl.member, "reason", why)
			args.Generation++
			continue
		case why := <-cl.unwanted:
			c.forget(id)
			c.cancelJob(id)
			return fail(fmt.Errorf("%s: no member ran it: %s", what, why))
		}
		c.forget(id)
		cl.finish()
		return decodeResults(data, results)
	}
}

// jobArgs are the arguments of the job of the actions reqs of driver,
// with the key of the action (actionKey).
func (c *Cluster) jobArgs(driver, digest string, reqs []executor.Request) (actionArgs, error) {
	args := actionArgs{Workspace: c.opts.Workspace, Action: reqs[0].Action, Digest: digest, Driver: driver, Leader: c.member}
	for _, req := range reqs {
		w, err := encodeRequest(req, c.opts.WorkDir)
		if err != nil {
			return actionArgs{}, err
		}
		args.Addresses = append(args.Addresses, req.Address)
		args.Requests = append(args.Requests, w)
	}
	args.Key = actionKey(args.Action, args.Requests)
	return args, nil
}

// register makes cl the call of job id and passes it the messages of
// the job that arrived before it.
func (c *Cluster) register(id int64, cl *call) {
	c.mu.Lock()
	c.calls[id] = cl
	early := c.early[id].msgs
	delete(c.early, id)
	c.mu.Unlock()
	for _, msg := range early {
		c.started(msg)
	}
}

// finish marks the call returned: no process its member reports is
// recorded after this.
func (cl *call) finish() {
	cl.mu.Lock()
	cl.finished = true
	cl.mu.Unlock()
}

// insertion is one job waiting for the inserter; key is its action's
// (actionKey).
type insertion struct {
	params river.InsertManyParams
	key    string
	reply  chan insertResult
}

// insertResult is the job inserted (or found by its unique key), or the
// result of a run of the same action that no call took.
type insertResult struct {
	res *rivertype.JobInsertResult
	ran *ranResult
	err error
}

// ranResult is a stored result of a job no call took.
type ranResult struct {
	job    int64
	member string
	data   []byte
}

// maxInsertBatch bounds the jobs of one insert.
const maxInsertBatch = 200

// insert hands a job to the inserter, which inserts the jobs that wait
// for it together (one statement for all of them: the walk hands out many
// actions at once, and a statement per job costs the database more than
// the job's row).
func (c *Cluster) insert(ctx context.Context, args actionArgs, key string, opts *river.InsertOpts) (insertResult, error) {
	in := insertion{params: river.InsertManyParams{Args: args, InsertOpts: opts}, key: key, reply: make(chan insertResult, 1)}
	select {
	case c.inserts <- in:
	case <-ctx.Done():
		return insertResult{}, ctx.Err()
	}
	// The insert completes even when ctx ends meanwhile: the caller then
	// cancels the job it got.
	r := <-in.reply
	return r, r.err
}

// inserter inserts the jobs waiting for it, as many as are there (up to
// maxInsertBatch) in each statement; it never waits for more to come.
func (c *Cluster) inserter(ctx context.Context) {
	for {
		var batch []insertion
		select {
		case <-ctx.Done():
			return
		case in := <-c.inserts:
			batch = append(batch, in)
		}
	more:
		for len(batch) < maxInsertBatch {
			select {
			case in := <-c.inserts:
				batch = append(batch, in)
			default:
				break more
			}
		}
		ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		c.insertBatch(ictx, batch)
		cancel()
	}
}

// insertBatch answers every insertion of batch in one transaction: an
// action that ran already (a stored result of its key that no call took:
// its leader died, or stopped waiting) gets that result; the others are
// inserted. The transaction holds the workspace's results lock, which a
// member takes to store a result: a job of the action that is still
// running is found by its unique key, and one that finished has its
// result stored (a member stores it before River completes the job).
func (c *Cluster) insertBatch(ctx context.Context, batch []insertion) {
	replies := make([]insertResult, len(batch))
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('xosplan:results:' || $1))`, c.opts.Workspace); err != nil {
			return err
		}
		keys := make([]string, 0, len(batch))
		for _, in := range batch {
			keys = append(keys, in.key)
		}
		rows, err := tx.Query(ctx, `UPDATE xosplan_sync_result r SET taken_by = $3
			FROM (SELECT DISTINCT ON (action_key) job_id FROM xosplan_sync_result
				WHERE workspace = $1 AND action_key = ANY($2) AND action_key <> '' AND taken_by <> $3
				ORDER BY action_key, created DESC) pick
			WHERE r.job_id = pick.job_id
			RETURNING r.job_id, r.action_key, r.member, r.result`, c.opts.Workspace, keys, c.member)
		if err != nil {
			return err
		}
		ran := map[string]*ranResult{}
		for rows.Next() {
			var key string
			var r ranResult
			if err := rows.Scan(&r.job, &key, &r.member, &r.data); err != nil {
				rows.Close()
				return err
			}
			ran[key] = &r
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		var params []river.InsertManyParams
		var at []int
		for i, in := range batch {
			if r := ran[in.key]; r != nil {
				replies[i].ran = r
				delete(ran, in.key) // one call per result
				continue
			}
			params = append(params, in.params)
			at = append(at, i)
		}
		if len(params) == 0 {
			return nil
		}
		results, err := c.river.InsertManyTx(ctx, tx, params)
		if err != nil {
			return err
		}
		if len(results) != len(params) {
			return errors.New("the queue returned fewer jobs than it was given")
		}
		for j, i := range at {
			replies[i].res = results[j]
		}
		return nil
	})
	for i, in := range batch {
		if err != nil {
			replies[i] = insertResult{err: err}
		}
		in.reply <- replies[i]
	}
}

// decodeResults fills results from a member's report (one outcome per
// request).
func decodeResults(data []byte, results []executor.BatchResult) []executor.BatchResult {
	outs, err := splitResults(data)
	if err == nil && len(outs) != len(results) {
		err = fmt.Errorf("a member reported %d results for %d actions", len(outs), len(results))
	}
	for i := range results {
		if err != nil {
			results[i].Err = err
			continue
		}
		out, actionErr, decErr := decodeOutcome(outs[i])
		results[i].Outcome, results[i].Err = out, errors.Join(actionErr, decErr)
	}
	return results
}

// wasDelivered reports whether a call of this member took the result of
// job id.
func (c *Cluster) wasDelivered(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.delivered[id]
	return ok
}

func (c *Cluster) forget(id int64) {
	c.mu.Lock()
	delete(c.calls, id)
	c.mu.Unlock()
}

// cancelJob cancels a job the leader no longer waits for: River stops it
// where it runs (its context ends; the driver ends its processes).
func (c *Cluster) cancelJob(id int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.river.JobCancel(ctx, id); err != nil && !errors.Is(err, river.ErrNotFound) {
		c.log.Warn("a job could not be cancelled", "job", id, "error", c.fail("cancelling", err).Error())
	}
}

// started records which member runs a job and, for a process it started,
// passes the process group on to the walk (which repeats the action's
// intent with it in the journal, the member named).
func (c *Cluster) started(msg message) {
	c.mu.Lock()
	cl := c.calls[msg.Job]
	if cl == nil {
		// Perhaps the call of a job whose insert has not returned yet
		// (kept a while; every member hears every message).
		e := c.early[msg.Job]
		if e.at.IsZero() {
			e.at = time.Now()
		}
		e.msgs = append(e.msgs, msg)
		c.early[msg.Job] = e
	}
	if cl != nil && cl.member != msg.Member {
		cl.member, cl.started = msg.Member, time.Now()
	}
	c.mu.Unlock()
	if cl == nil || msg.PGID == 0 || msg.Index < 0 || msg.Index >= len(cl.reqs) {
		return
	}
	if f := cl.reqs[msg.Index].Started; f != nil {
		c.wg.Go(func() {
			cl.mu.Lock()
			defer cl.mu.Unlock()
			if !cl.finished {
				f(state.Process{PID: msg.PID, PGID: msg.PGID, Start: msg.Start, Member: msg.Member})
			}
		})
	}
}

// earlyStart holds the started messages of a job nobody waits for yet.
type earlyStart struct {
	at   time.Time
	msgs []message
}

// earlyKept is how long a started message waits for its call.
const earlyKept = 10 * time.Second

// refused counts a member's refusal of a job (its checkout changed since
// it took the job's queue).
func (c *Cluster) refused(msg message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl := c.calls[msg.Job]; cl != nil {
		cl.refused[msg.Member] = true
	}
}

// unwanted tells the calls that no live member can run that they wait in
// vain: none has the checkout they were planned from (none publishes it,
// or each that does refused them). The leader's own checkout is the one
// it plans from, so this is a member that stopped working, or a checkout
// changed under a running walk.
func (c *Cluster) unwanted() {
	mine := ""
	if p := c.checkout.Load(); p != nil {
		mine = *p
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cl := range c.calls {
		var others []string
		can := false
		for _, m := range c.members {
			checkout := m.Checkout
			if m.Member == c.member {
				checkout = mine
			}
			if !m.Alive {
				continue
			}
			if checkout == "" || (checkout == cl.digest && !cl.refused[m.Member]) {
				can = true
				break
			}
			others = append(others, m.Member+" has "+checkout)
		}
		if can || len(c.members) == 0 {
			continue
		}
		select {
		case cl.unwanted <- fmt.Sprintf("no live member has the checkout it was planned from (%s): %s", cl.digest, strings.Join(others, ", ")):
		default:
		}
	}
}

// sweep delivers the results members report to the calls that wait for
// them, when a member says one is there and every half second (a message
// may be lost while the listener connects again), and hands out again
// the jobs of members that died.
func (c *Cluster) sweep(ctx context.Context) {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	cleaned := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		case <-tick.C:
			c.findMembers(ctx)
			c.reassign()
			c.unwanted()
			c.finished(ctx)
		}
		c.mu.Lock()
		ids := make([]int64, 0, len(c.calls))
		for id := range c.calls {
			ids = append(ids, id)
		}
		c.mu.Unlock()
		if len(ids) > 0 {
			c.collect(ctx, ids)
		}
		if time.Since(cleaned) > time.Minute && c.Leading() {
			cleaned = time.Now()
			// Results nobody collected: of a leader that died waiting.
			_, _ = c.pool.Exec(ctx, `DELETE FROM xosplan_sync_result WHERE workspace = $1 AND created < now() - interval '1 hour'`, c.opts.Workspace)
		}
	}
}

// collect takes the results of ids and passes each to its call. A result
// stays in the table, taken by this member, until its walk has recorded
// it (clearTaken): should this leader die before, the next one uses it.
func (c *Cluster) collect(ctx context.Context, ids []int64) {
	rows, err := c.pool.Query(ctx, `UPDATE xosplan_sync_result SET taken_by = $2 WHERE job_id = ANY($1) AND taken_by <> $2 RETURNING job_id, result`,
		ids, c.member)
	if err != nil {
		if ctx.Err() == nil {
			c.log.Warn("results not read", "error", c.fail("reading results", err).Error())
		}
		return
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var data []byte
		if rows.Scan(&id, &data) != nil {
			continue
		}
		c.mu.Lock()
		cl := c.calls[id]
		c.delivered[id] = time.Now()
		c.mu.Unlock()
		if cl != nil {
			select {
			case cl.done <- data:
			default:
			}
		}
	}
}

// finished tells the calls whose job River holds as finished (or no
// longer holds) without a stored result that none will come: a job whose
// result an earlier call took (found again by its unique key before River
// recorded its completion), or one cancelled or discarded. The results
// are collected after River's states are read: a member stores a job's
// result before River completes it.
func (c *Cluster) finished(ctx context.Context) {
	c.mu.Lock()
	var ids []int64
	for id, cl := range c.calls {
		if time.Since(cl.since) > 2*time.Second {
			ids = append(ids, id)
		}
	}
	c.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	rows, err := c.pool.Query(ctx, `SELECT x FROM unnest($1::bigint[]) x WHERE NOT EXISTS (SELECT 1 FROM river_job j
		WHERE j.id = x AND j.state IN ('available', 'pending', 'retryable', 'running', 'scheduled'))`, ids)
	if err != nil {
		return
	}
	ended, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(ended) == 0 {
		return
	}
	c.collect(ctx, ended)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ended {
		if cl := c.calls[id]; cl != nil && len(cl.done) == 0 {
			select {
			case cl.gone <- "its job ended without a result":
			default:
			}
		}
	}
}

// findMembers asks River which member runs the jobs whose started
// message did not come (one lost while the listener connected again).
func (c *Cluster) findMembers(ctx context.Context) {
	c.mu.Lock()
	var ids []int64
	for id, cl := range c.calls {
		if cl.member == "" && time.Since(cl.since) > 2*time.Second && len(ids) < 20 {
			ids = append(ids, id)
		}
	}
	c.mu.Unlock()
	for _, id := range ids {
		job, err := c.river.JobGet(ctx, id)
		if err != nil || job.State != rivertype.JobStateRunning || len(job.AttemptedBy) == 0 {
			continue
		}
		c.mu.Lock()
		if cl := c.calls[id]; cl != nil && cl.member == "" {
			cl.member, cl.started = job.AttemptedBy[len(job.AttemptedBy)-1], time.Now()
		}
		c.mu.Unlock()
	}
}

// reassign tells the calls whose member died (its membership lapsed or
// its session ended; or it has not been seen for a lease since it
// started the job) that it is gone.
func (c *Cluster) reassign() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, e := range c.early {
		if time.Since(e.at) > earlyKept {
			delete(c.early, id)
		}
	}
	known := map[string]bool{}
	for _, m := range c.members {
		known[m.Member] = m.Alive
	}
	for _, cl := range c.calls {
		if cl.member == "" {
			continue
		}
		alive, seen := known[cl.member]
		if (seen && !alive) || (!seen && time.Since(cl.started) > c.opts.Lease) {
			select {
			case cl.gone <- "its member is gone":
			default:
			}
		}
	}
}
