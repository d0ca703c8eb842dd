//go:build linux

package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/pgbackend"
	"github.com/xosplan/xosplan/pkg/state/pgbackend/pgtest"
	xsync "github.com/xosplan/xosplan/pkg/sync"
)

// testLease is short, so that the failover tests take seconds.
const testLease = 1500 * time.Millisecond

// tally records which member ran which action.
type tally struct {
	mu  sync.Mutex
	ran map[string][]string // member -> addresses
}

func (t *tally) add(member, addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ran == nil {
		t.ran = map[string][]string{}
	}
	t.ran[member] = append(t.ran[member], addr)
}

func (t *tally) count(member string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.ran[member])
}

func (t *tally) total() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, a := range t.ran {
		n += len(a)
	}
	return n
}

// sleeper is a driver that takes a while, records who ran it, reports an
// attribute, and tells the walk of a (made-up) process it started.
type sleeper struct {
	member string
	delay  time.Duration
	tally  *tally
	// block, when set, is waited for (not the context: a member that
	// hangs) before the action ends.
	block chan struct{}
}

func (s *sleeper) Apply(ctx context.Context, req executor.Request) (executor.Outcome, error) {
	if req.Started != nil {
		req.Started(state.Process{PID: 4242, PGID: 4242, Start: "test"})
	}
	if s.block != nil {
		<-s.block
	}
	select {
	case <-ctx.Done():
		return executor.Outcome{}, fmt.Errorf("stopped: %w", ctx.Err())
	case <-time.After(s.delay):
	}
	s.tally.add(s.member, req.Address)
	if req.Address == "broken" {
		return executor.Outcome{Feedback: state.Feedback{BackendCode: state.BackendError}}, fmt.Errorf("broken on %s", s.member)
	}
	fb := state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true},
		Attributes: map[string]graph.Value{"ran_on": s.member, "port": int64(8080), "in": req.Resolved["in"]}}
	return executor.Outcome{Feedback: fb}, nil
}

// goalWith is a goal whose checkout digest is that of files.
func goalWith(files string, drivers executor.Registry) *xsync.Goal {
	return &xsync.Goal{Drivers: drivers, Plan: planner.Options{InputDigests: map[string]string{"stack.yaml": files, "var.secret": "salted"}}}
}

// goalOf is the goal a leader whose driver is drv compiled from files.
func goalOf(files string, drv executor.Driver) *xsync.Goal {
	return goalWith(files, executor.Registry{graph.DriverExec: drv})
}

// member opens a member of the database's default workspace whose
// checkout has the digest of files.
func member(t *testing.T, dsn, name, files string, drv executor.Driver) *Cluster {
	t.Helper()
	drivers := executor.Registry{graph.DriverExec: drv}
	digest := xsync.CheckoutDigest(goalWith(files, drivers))
	return openMember(t, dsn, name, nil, func(context.Context) (Local, error) { return Local{Drivers: drivers, Digest: digest}, nil })
}

// openMember opens a member of parallelism 4 and the test's lease whose
// checkout local compiles, logging to logger (nil: nowhere); it leaves
// when the test ends.
func openMember(t *testing.T, dsn, name string, logger *slog.Logger, local func(context.Context) (Local, error)) *Cluster {
	t.Helper()
	c, err := Open(context.Background(), Options{DSN: dsn, Name: name, Parallelism: 4, Lease: testLease, WorkDir: t.TempDir(),
		Logger: logger, Local: local})
	if err != nil {
		t.Fatalf("opening member %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = c.Close(ctx)
	})
	return c
}

// database returns a database of its own, migrated by the state backend.
func database(t testing.TB) string {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	b, err := pgbackend.Open(context.Background(), pgbackend.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	return dsn
}

// allAlive waits until c sees n live members.
func allAlive(t testing.TB, c *Cluster, n int) {
	t.Helper()
	testutil.WaitFor(t, 10*time.Second, fmt.Sprintf("%d live members", n), func() bool {
		alive := 0
		for _, m := range c.Status().Members {
			if m.Alive {
				alive++
			}
		}
		return alive == n
	})
}

// dispatchLimit bounds one dispatchAll: its actions take well under a
// second each.
const dispatchLimit = 60 * time.Second

// dispatchAll runs one create per address through drivers, all at once,
// and returns each one's outcome and error. It fails the test, with the
// goroutines' stacks, when they have not all returned within
// dispatchLimit.
func dispatchAll(t testing.TB, drivers executor.Registry, addrs []string, started func(string, state.Process)) ([]executor.Outcome, []error) {
	t.Helper()
	return dispatchWithin(t, dispatchLimit, drivers, addrs, started)
}

func dispatchWithin(t testing.TB, limit time.Duration, drivers executor.Registry, addrs []string, started func(string, state.Process)) ([]executor.Outcome, []error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	outs, errs := make([]executor.Outcome, len(addrs)), make([]error, len(addrs))
	var wg sync.WaitGroup
	for i, a := range addrs {
		wg.Go(func() { outs[i], errs[i] = drivers[graph.DriverExec].Apply(ctx, createOf(a, started)) })
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return outs, errs
	case <-ctx.Done():
	}
	stacks := goroutines()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
	}
	t.Fatalf("the actions %v were not all done within %s; the goroutines then:\n%s", addrs, limit, stacks)
	return nil, nil
}

// createOf is the create request dispatchAll hands out for address a.
func createOf(a string, started func(string, state.Process)) executor.Request {
	req := executor.Request{Action: executor.ActionCreate, Address: a, Resolved: map[string]graph.Value{"in": []graph.Value{int64(1), "two"}},
		Resource: &graph.Resource{Address: a, Type: "t", Driver: graph.Driver{Name: graph.DriverExec}, Spec: map[string]graph.Value{"in": int64(1)}}}
	if started != nil {
		req.Started = func(p state.Process) { started(a, p) }
	}
	return req
}

// goroutines returns the stacks of every goroutine.
func goroutines() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

func addresses(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("r%02d", i)
	}
	return out
}

// TestActionsAreSpreadOverEveryMemberAndTheirResultsComeBack: the
// leader's drivers hand 72 actions to three members (parallelism 4 each,
// 50 ms each); every member runs some, each result (attributes with their
// types, a failure's error) reaches the caller, and the process a member
// started is passed on with the member's name.
func TestActionsAreSpreadOverEveryMemberAndTheirResultsComeBack(t *testing.T) {
	dsn := database(t)
	var tl tally
	names := []string{"m1", "m2", "m3"}
	var cs []*Cluster
	var first *sleeper
	for _, n := range names {
		drv := &sleeper{member: n, delay: 50 * time.Millisecond, tally: &tl}
		cs = append(cs, member(t, dsn, n, "sha256:1", drv))
		if first == nil {
			first = drv
		}
	}
	allAlive(t, cs[0], 3)
	drivers, capacity := cs[0].Dispatch(goalOf("sha256:1", first))
	if capacity != 24 {
		t.Errorf("the walk's parallelism %d, want 24 (three members of 4, and as many again queued)", capacity)
	}
	var mu sync.Mutex
	procs := map[string]state.Process{}
	addrs := append(addresses(71), "broken")
	outs, errs := dispatchAll(t, drivers, addrs, func(a string, p state.Process) {
		mu.Lock()
		procs[a] = p
		mu.Unlock()
	})
	for i, a := range addrs {
		if a == "broken" {
			if errs[i] == nil || !strings.HasPrefix(errs[i].Error(), "broken on m") {
				t.Errorf("%s: error %v, want the member's", a, errs[i])
			}
			continue
		}
		if errs[i] != nil {
			t.Fatalf("%s: %v", a, errs[i])
		}
		attrs := outs[i].Feedback.Attributes
		if attrs["port"] != int64(8080) || outs[i].Feedback.BackendCode != state.BackendOK {
			t.Errorf("%s: feedback %+v", a, outs[i].Feedback)
		}
		if in, ok := attrs["in"].([]graph.Value); !ok || len(in) != 2 || in[0] != int64(1) || in[1] != "two" {
			t.Errorf("%s: the resolved value came back as %#v", a, attrs["in"])
		}
	}
	for _, n := range names {
		if tl.count(n) == 0 {
			t.Errorf("member %s ran nothing: %v", n, tl.ran)
		}
	}
	if tl.total() != len(addrs) {
		t.Errorf("%d actions ran, want %d: %v", tl.total(), len(addrs), tl.ran)
	}
	testutil.WaitFor(t, 5*time.Second, "every process reported", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(procs) == len(addrs)
	})
	for a, p := range procs {
		if p.PGID != 4242 || !strings.HasPrefix(p.Member, "m") {
			t.Errorf("%s: process %+v, want pgid 4242 and the member", a, p)
		}
	}
}

// TestAMemberWhoseCheckoutDiffersRunsNoneOfTheLeadersActions: m2's
// configuration is not the one the leader plans from: it takes none of
// its actions and says so in its log, while m1 runs them all; once m2's
// checkout is updated, it takes its share.
func TestAMemberWhoseCheckoutDiffersRunsNoneOfTheLeadersActions(t *testing.T) {
	dsn := database(t)
	var tl tally
	m1drv := &sleeper{member: "m1", delay: 50 * time.Millisecond, tally: &tl}
	m1 := member(t, dsn, "m1", "sha256:1", m1drv)
	var m2Files atomic.Value
	m2Files.Store("sha256:other")
	var log testutil.Buffer
	m2drivers := executor.Registry{graph.DriverExec: &sleeper{member: "m2", delay: 50 * time.Millisecond, tally: &tl}}
	m2 := openMember(t, dsn, "m2", slog.New(slog.NewTextHandler(&log, nil)), func(context.Context) (Local, error) {
		return Local{Drivers: m2drivers, Digest: xsync.CheckoutDigest(goalWith(m2Files.Load().(string), m2drivers))}, nil
	})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() { _ = m1.Run(ctx, func(term context.Context) error { <-term.Done(); return nil }) }()
	testutil.WaitFor(t, 10*time.Second, "m1 to lead", m1.Leading)
	allAlive(t, m1, 2)
	drivers, _ := m1.Dispatch(goalOf("sha256:1", m1drv))
	_, errs := dispatchAll(t, drivers, addresses(8), nil)
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if tl.count("m2") != 0 || tl.count("m1") != 8 {
		t.Errorf("runs %v: m2's checkout differs, m1 should run all 8", tl.ran)
	}
	testutil.WaitFor(t, 10*time.Second, "m2 to say its checkout is not the leader's", func() bool {
		return strings.Contains(log.String(), "this member's checkout is not the leader's")
	})
	m2Files.Store("sha256:1")
	m2.LocalChanged()
	testutil.WaitFor(t, 10*time.Second, "m2 to publish the leader's checkout", func() bool {
		for _, m := range m1.Status().Members {
			if m.Member == m2.Member() {
				return m.Checkout == xsync.CheckoutDigest(goalWith("sha256:1", m2drivers))
			}
		}
		return false
	})
	_, errs = dispatchAll(t, drivers, addresses(16), nil)
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if tl.count("m2") == 0 {
		t.Errorf("m2 ran nothing once its checkout was the leader's: %v", tl.ran)
	}
}

// TestACallNoLiveMemberCanRunFailsSayingWhy: when no live member has the
// checkout an action was planned from (the members published others),
// the leader stops waiting and says which checkouts the members have.
func TestACallNoLiveMemberCanRunFailsSayingWhy(t *testing.T) {
	mine := "sha256:aaaa"
	c := &Cluster{member: "leader:1", calls: map[int64]*call{}, members: []xsync.MemberStatus{
		{Member: "leader:1", Alive: true}, {Member: "m2:2", Alive: true, Checkout: "sha256:bbbb"}, {Member: "m3:3", Alive: false, Checkout: "sha256:cccc"}}}
	c.checkout.Store(&mine)
	cl := &call{digest: "sha256:cccc", refused: map[string]bool{}, unwanted: make(chan string, 1)}
	c.calls[1] = cl
	c.unwanted()
	select {
	case why := <-cl.unwanted:
		if want := "no live member has the checkout it was planned from (sha256:cccc): leader:1 has sha256:aaaa, m2:2 has sha256:bbbb"; why != want {
			t.Errorf("reason %q, want %q", why, want)
		}
	default:
		t.Fatal("a call no live member can run is still waited for")
	}
	ok := &call{digest: "sha256:bbbb", refused: map[string]bool{}, unwanted: make(chan string, 1)}
	c.calls[2] = ok
	c.unwanted()
	if len(ok.unwanted) != 0 {
		t.Error("a call m2 can run was given up")
	}
}

// TestTheJobOfAMemberThatDiesIsRunByAnother: m1 takes the action and
// hangs; when its membership lapses (its session ends, as when the
// process is killed), the leader hands the action to m2, which runs it.
func TestTheJobOfAMemberThatDiesIsRunByAnother(t *testing.T) {
	dsn := database(t)
	var tl tally
	block := make(chan struct{})
	defer close(block)
	leaderDrv := &sleeper{member: "leader", tally: &tl}
	leader := member(t, dsn, "leader", "sha256:1", leaderDrv)
	hung := member(t, dsn, "hung", "sha256:1", &sleeper{member: "hung", tally: &tl, block: block})
	allAlive(t, leader, 2)
	// Only the hung member takes work until it dies: the leader's own
	// workers leave its queue.
	if err := leader.river.Queues().Remove(context.Background(), leader.queue); err != nil {
		t.Fatal(err)
	}
	drivers, _ := leader.Dispatch(goalOf("sha256:1", leaderDrv))
	done := make(chan error, 1)
	var mu sync.Mutex
	var attempts []string
	ctx, cancel := context.WithTimeout(context.Background(), dispatchLimit)
	defer cancel()
	go func() {
		_, err := drivers[graph.DriverExec].Apply(ctx, createOf("x", func(_ string, p state.Process) {
			mu.Lock()
			attempts = append(attempts, p.Member)
			mu.Unlock()
		}))
		done <- err
	}()
	testutil.WaitFor(t, 10*time.Second, "the hung member to take the action", func() bool {
		for _, m := range leader.Status().Members {
			if m.Member == hung.Member() && len(m.Running) == 1 && m.Running[0] == "x" {
				return true
			}
		}
		return false
	})
	var tl2 tally
	rescuer := member(t, dsn, "rescuer", "sha256:1", &sleeper{member: "rescuer", delay: 10 * time.Millisecond, tally: &tl2})
	hung.die()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the action handed out again: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the action of the dead member was not run by another")
	}
	if tl2.count("rescuer") != 1 {
		t.Errorf("the rescuer ran %v", tl2.ran)
	}
	// The walk hears of both attempts, each with its member: it repeats
	// the action's intent in the journal for each.
	mu.Lock()
	defer mu.Unlock()
	if len(attempts) != 2 || attempts[0] != hung.Member() || attempts[1] != rescuer.Member() {
		t.Errorf("the walk heard of the attempts %v, want the hung member's, then the rescuer's", attempts)
	}
}

// TestOneMemberLeadsAndAnotherTakesOverWhenItsSessionEnds: two members
// campaign; one leads, the other waits; when the leader's session ends
// (a kill), the other leads within the lease.
func TestOneMemberLeadsAndAnotherTakesOverWhenItsSessionEnds(t *testing.T) {
	dsn := database(t)
	var tl tally
	a := member(t, dsn, "a", "sha256:1", &sleeper{member: "a", tally: &tl})
	b := member(t, dsn, "b", "sha256:1", &sleeper{member: "b", tally: &tl})
	var leading atomic.Int32
	var leaders sync.Map
	run := func(c *Cluster, ctx context.Context) {
		_ = c.Run(ctx, func(term context.Context) error {
			if leading.Add(1) != 1 {
				t.Errorf("%s leads beside another", c.Member())
			}
			leaders.Store(c.Member(), true)
			<-term.Done()
			leading.Add(-1)
			return nil
		})
	}
	ctxA, stopA := context.WithCancel(context.Background())
	defer stopA()
	ctxB, stopB := context.WithCancel(context.Background())
	defer stopB()
	go run(a, ctxA)
	testutil.WaitFor(t, 10*time.Second, "a to lead", func() bool { return a.Leading() })
	go run(b, ctxB)
	time.Sleep(2 * testLease)
	if b.Leading() {
		t.Fatal("b leads while a renews its lease")
	}
	killed := time.Now()
	a.die()
	stopA()
	testutil.WaitFor(t, 3*testLease, "b to lead after a's session ended", func() bool { return b.Leading() })
	t.Logf("b leads %s after a's session ended (lease %s)", time.Since(killed).Round(time.Millisecond), testLease)
	if _, ok := leaders.Load(b.Member()); !ok {
		t.Error("b's lead function did not run")
	}
}

// die ends the member's session and its background work without leaving
// the cluster or reporting anything, as a killed process does.
func (c *Cluster) die() {
	// Its workers take nothing more (a killed process's are gone); the
	// one that hangs stays as it is.
	go func() {
		// Bounded: River's stop waits for a queue removed while the client
		// started, and holds its stop lock meanwhile.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.river.StopAndCancel(ctx)
	}()
	c.stop()
	c.wg.Wait()
	c.sessionMu.Lock()
	if c.session != nil {
		_ = c.session.Close(context.Background())
	}
	c.sessionMu.Unlock()
}

// TestAMemberWhoseCheckoutDiffersKeepsRenewingItsMembership: a member
// whose checkout is not the leader's, and changes (a checkout being
// updated), compiles its configuration again each time its heartbeat sees
// a new difference (the compile takes a while here); its heartbeat, and
// its session, must carry on meanwhile. The heartbeat used
// to start the compile holding the session, whose lock the compile then
// wanted to publish its checkout: the member deadlocked and dropped out.
func TestAMemberWhoseCheckoutDiffersKeepsRenewingItsMembership(t *testing.T) {
	dsn := database(t)
	var tl tally
	m1 := member(t, dsn, "m1", "sha256:1", &sleeper{member: "m1", tally: &tl})
	m2drivers := executor.Registry{graph.DriverExec: &sleeper{member: "m2", tally: &tl}}
	var compiles atomic.Int32
	m2 := openMember(t, dsn, "m2", nil, func(ctx context.Context) (Local, error) {
		n := compiles.Add(1)
		if n > 1 {
			select {
			case <-ctx.Done():
			case <-time.After(testLease / 3):
			}
		}
		files := fmt.Sprintf("sha256:other-%d", n)
		return Local{Drivers: m2drivers, Digest: xsync.CheckoutDigest(goalWith(files, m2drivers))}, nil
	})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() { _ = m1.Run(ctx, func(term context.Context) error { <-term.Done(); return nil }) }()
	testutil.WaitFor(t, 10*time.Second, "m1 to lead", m1.Leading)
	allAlive(t, m1, 2)
	testutil.WaitFor(t, 10*time.Second, "m2 to compile again", func() bool { return compiles.Load() > 2 })
	// A deadlocked member never renews its membership again: after five
	// leases of compiles, m2 still renews it.
	time.Sleep(5 * testLease)
	var since time.Time
	for _, m := range m1.Status().Members {
		if m.Member == m2.Member() && m.Heartbeat != nil {
			since = *m.Heartbeat
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, m := range m1.Status().Members {
			if m.Member == m2.Member() && m.Alive && m.Heartbeat != nil && m.Heartbeat.After(since) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("m2 stopped renewing its membership (after %d compiles); its goroutines:\n%s", compiles.Load(), goroutines())
		}
		time.Sleep(testLease / 4)
	}
}
