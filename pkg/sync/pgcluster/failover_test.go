//go:build linux

package pgcluster

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state/pgbackend/pgtest"
	xsync "github.com/xosplan/xosplan/pkg/sync"
)

// failover is a leader whose own workers take no action and a follower
// that runs them all, its driver held at gate (when the test holds it).
type failover struct {
	dsn      string
	tl       tally
	leader   *Cluster
	follower *Cluster
	gate     chan struct{}
	// leaderDrivers hand out the leader's actions; leaderCtx ends the
	// calls still waiting when the test ends (a killed leader's end).
	leaderDrivers executor.Registry
	leaderCtx     context.Context
	// queue is the one the actions go to.
	queue string
}

// newFailover opens the leader and the follower. The leader's own
// checkout is not the one it hands actions out from, so that it runs none
// of them.
func newFailover(t *testing.T) *failover {
	t.Helper()
	f := &failover{dsn: database(t), gate: make(chan struct{})}
	leaderDrv := &sleeper{member: "leader", tally: &f.tl}
	f.leader = member(t, f.dsn, "leader", "sha256:leader", leaderDrv)
	f.follower = member(t, f.dsn, "follower", "sha256:1", &sleeper{member: "follower", delay: 10 * time.Millisecond, tally: &f.tl, block: f.gate})
	allAlive(t, f.leader, 2)
	// The leader's Dispatch without adopting the goal as its checkout.
	digest := xsync.CheckoutDigest(goalOf("sha256:1", leaderDrv))
	f.queue = f.leader.queueFor(digest)
	f.leaderDrivers = executor.Registry{graph.DriverExec: &remote{c: f.leader, name: graph.DriverExec, local: leaderDrv, digest: digest}}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f.leaderCtx = ctx
	return f
}

// handOut makes the leader hand x out without waiting for it (its walk
// waits until the test ends).
func (f *failover) handOut() {
	go func() { _, _ = f.leaderDrivers[graph.DriverExec].Apply(f.leaderCtx, createOf("x", nil)) }()
}

// takeOver is the follower leading after the leader's death: its walk
// plans x again and hands it out; it returns the outcome.
func (f *failover) takeOver(t *testing.T) executor.Outcome {
	t.Helper()
	drivers, _ := f.follower.Dispatch(goalOf("sha256:1", &sleeper{member: "follower", tally: &f.tl}))
	outs, errs := dispatchAll(t, drivers, []string{"x"}, nil)
	if errs[0] != nil {
		t.Fatalf("x, handed out again by the new leader: %v", errs[0])
	}
	return outs[0]
}

// jobState is the River state of x's job of generation 0.
func (f *failover) jobState(t *testing.T) string {
	t.Helper()
	rows, err := pgtest.Query(context.Background(), f.dsn, `SELECT state FROM river_job WHERE kind = 'xosplan_action'
		AND args->'addresses' = '["x"]'::jsonb AND (args->>'generation')::int = 0`)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(rows, ",")
}

// release opens the gate once the follower's walk waits for x.
func (f *failover) releaseWhenWaited(t *testing.T, gate chan struct{}) {
	go func() {
		for range 3000 {
			f.follower.mu.Lock()
			n := len(f.follower.calls)
			f.follower.mu.Unlock()
			if n > 0 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		close(gate)
	}()
}

// killBeforeReport has the leader hand x out and kills it once the
// follower finished x and is about to store its result; it returns what
// lets the follower go on.
func (f *failover) killBeforeReport(t *testing.T) chan struct{} {
	t.Helper()
	close(f.gate)
	reached, release := make(chan struct{}), make(chan struct{})
	f.follower.hooks.Store(&testHooks{beforeReport: once(func() {
		close(reached)
		<-release
	})})
	f.handOut()
	select {
	case <-reached:
	case <-time.After(dispatchLimit):
		t.Fatal("the follower did not finish x")
	}
	f.leader.die()
	return release
}

// TestALeaderKilledAtAnyStepOfAnActionNeverHasItRunTwice: the leader
// hands an action to the follower and dies (its session and work end, as
// with kill -9) at each step of the action's life; the follower then
// leads, plans the action again and hands it out. Whatever the step, the
// action runs once, and the new leader gets the result of that run: it
// waits for the run still under way, or uses the result the follower
// stored, whether or not the dead leader had collected it.
func TestALeaderKilledAtAnyStepOfAnActionNeverHasItRunTwice(t *testing.T) {
	steps := []struct {
		name string
		// kill brings the action to the step and kills the leader there.
		kill func(t *testing.T, f *failover)
	}{
		{"handed out, not started", func(t *testing.T, f *failover) {
			close(f.gate)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := f.follower.river.QueuePause(ctx, f.queue, nil); err != nil {
				t.Fatal(err)
			}
			f.handOut()
			testutil.WaitFor(t, 10*time.Second, "x's job to be queued", func() bool { return f.jobState(t) == "available" })
			f.leader.die()
			if err := f.follower.river.QueueResume(ctx, f.queue, nil); err != nil {
				t.Fatal(err)
			}
		}},
		{"started", func(t *testing.T, f *failover) {
			f.handOut()
			testutil.WaitFor(t, 10*time.Second, "the follower to start x", func() bool { return f.follower.running("x") })
			f.leader.die()
			f.releaseWhenWaited(t, f.gate)
		}},
		{"finished, its result not stored yet", func(t *testing.T, f *failover) {
			release := f.killBeforeReport(t)
			f.releaseWhenWaited(t, release)
		}},
		{"result stored, not collected", func(t *testing.T, f *failover) {
			release := f.killBeforeReport(t)
			close(release)
			testutil.WaitFor(t, 20*time.Second, "River to complete x's job", func() bool { return f.jobState(t) == "completed" })
		}},
		{"result collected, not recorded", func(t *testing.T, f *failover) {
			close(f.gate)
			if _, errs := dispatchAll(t, f.leaderDrivers, []string{"x"}, nil); errs[0] != nil {
				t.Fatal(errs[0])
			}
			f.leader.die()
		}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			f := newFailover(t)
			step.kill(t, f)
			out := f.takeOver(t)
			if got := out.Feedback.Attributes["ran_on"]; got != "follower" {
				t.Errorf("x's outcome says it ran on %v, want the follower", got)
			}
			if n := f.tl.total(); n != 1 {
				t.Errorf("x ran %d times (%v), want once", n, f.tl.ran)
			}
		})
	}
}

// TestAResultTheLeaderRecordedIsNotUsedAgain: once the walk that took a
// result has ended (the next walk starts: it recorded the result in the
// journal), the result goes, so that a later plan of the same action (the
// state asks for it again) runs it.
func TestAResultTheLeaderRecordedIsNotUsedAgain(t *testing.T) {
	f := newFailover(t)
	close(f.gate)
	if _, errs := dispatchAll(t, f.leaderDrivers, []string{"x"}, nil); errs[0] != nil {
		t.Fatal(errs[0])
	}
	f.leader.clearTaken()
	if _, errs := dispatchAll(t, f.leaderDrivers, []string{"x"}, nil); errs[0] != nil {
		t.Fatal(errs[0])
	}
	if n := f.tl.total(); n != 2 {
		t.Errorf("x ran %d times (%v), want twice: the second walk asked for it again", n, f.tl.ran)
	}
	rows, err := pgtest.Query(context.Background(), f.dsn, `SELECT count(*) FROM xosplan_sync_result WHERE taken_by = '`+f.leader.Member()+`'`)
	if err != nil || len(rows) != 1 || rows[0] != "1" {
		t.Errorf("results held by the leader: %v (%v), want the last walk's only", rows, err)
	}
}

// TestAnActionHandedOutAgainBeforeRiverRecordsItsEndRunsAgain: River
// records a job's completion in batches, a moment after its worker
// returned; a walk that hands the same action out again meanwhile finds
// that job by its unique key. It must not wait for a result its first
// call took already (it waited forever), nor, when River then finishes a
// job without a result, wait for that.
func TestAnActionHandedOutAgainBeforeRiverRecordsItsEndRunsAgain(t *testing.T) {
	dsn := database(t)
	var tl tally
	drv := &sleeper{member: "m1", delay: 10 * time.Millisecond, tally: &tl}
	m1 := member(t, dsn, "m1", "sha256:1", drv)
	drivers, _ := m1.Dispatch(goalOf("sha256:1", drv))
	if _, errs := dispatchAll(t, drivers, []string{"x"}, nil); errs[0] != nil {
		t.Fatal(errs[0])
	}
	// As River's completer that has not recorded the end yet.
	running := func() {
		testutil.WaitFor(t, 20*time.Second, "x's job to be completed", func() bool {
			rows, _ := pgtest.Query(context.Background(), dsn, `SELECT count(*) FROM river_job WHERE state = 'completed' AND args->'addresses' = '["x"]'::jsonb`)
			return len(rows) == 1 && rows[0] != "0"
		})
		if _, err := pgtest.Query(context.Background(), dsn, `UPDATE river_job SET state = 'running', finalized_at = NULL
			WHERE args->'addresses' = '["x"]'::jsonb RETURNING id`); err != nil {
			t.Fatal(err)
		}
	}
	running()
	if _, errs := dispatchWithin(t, 20*time.Second, drivers, []string{"x"}, nil); errs[0] != nil {
		t.Fatal(errs[0])
	}
	if n := tl.count("m1"); n != 2 {
		t.Errorf("x ran %d times, want twice", n)
	}
	// A member that restarted knows nothing of the results it took: it
	// waits until River finishes the job, then hands the action out again.
	running()
	m1.mu.Lock()
	clear(m1.delivered)
	m1.mu.Unlock()
	drivers, _ = m1.Dispatch(goalOf("sha256:1", drv))
	go func() {
		time.Sleep(time.Second)
		_, _ = pgtest.Query(context.Background(), dsn, `UPDATE river_job SET state = 'completed', finalized_at = now()
			WHERE state = 'running' AND args->'addresses' = '["x"]'::jsonb RETURNING id`)
	}()
	if _, errs := dispatchWithin(t, 20*time.Second, drivers, []string{"x"}, nil); errs[0] != nil {
		t.Fatal(errs[0])
	}
	if n := tl.count("m1"); n != 3 {
		t.Errorf("x ran %d times, want three", n)
	}
}

// once is a beforeReport hook that calls f at the first report only.
func once(f func()) func(int64, []string) {
	var o sync.Once
	return func(int64, []string) { o.Do(f) }
}

// running reports whether this member runs addr now.
func (c *Cluster) running(addr string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, addrs := range c.working {
		for _, a := range addrs {
			if a == addr {
				return true
			}
		}
	}
	return false
}
