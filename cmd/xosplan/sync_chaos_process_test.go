//go:build linux

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/state/pgbackend/pgtest"
)

// runOp is every operation of the fault tests' stacks: it logs its start
// and its end ("tag address operation start|end") around its work, so
// that every run of an operation's side effect is counted, and whether it
// finished. A create of a node named slow* waits for $WORK/release, unless
// it runs on the member $WORK/fast names.
const runOp = `set -eu
echo "$TAG $XOSPLAN_ADDRESS $XOSPLAN_OPERATION start" >> "$WORK/runs.log"
case "$XOSPLAN_ADDRESS.$XOSPLAN_OPERATION" in
slow*.Standard.create)
	if [ "$TAG" != "$(cat "$WORK/fast" 2>/dev/null)" ]; then
		i=0; until [ -e "$WORK/release" ] || [ $i -ge 1200 ]; do sleep 0.1; i=$((i+1)); done
	fi ;;
*) sleep 0.6 ;;
esac
echo "$TAG $XOSPLAN_ADDRESS $XOSPLAN_OPERATION end" >> "$WORK/runs.log"
`

// runsDir is a cluster folder whose stack's operations are runOp.
func runsDir(t *testing.T) string {
	t.Helper()
	dir := clusterDir(t)
	if err := os.WriteFile(filepath.Join(dir, "op.sh"), []byte(runOp), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// reportedRE finds what a member says once it stored an action's result.
var reportedRE = regexp.MustCompile(`msg="ran an action" addresses=(\S+)`)

// reported lists the addresses whose results the member stored (its log).
func reported(m *syncMember) map[string]bool {
	out := map[string]bool{}
	for _, sm := range reportedRE.FindAllStringSubmatch(m.out.String(), -1) {
		for _, a := range strings.Split(sm[1], ",") {
			out[a] = true
		}
	}
	return out
}

// runLog is runs.log read: for each operation of each address, its runs
// in the order they started.
type runLog struct {
	lines []string
}

func readRunLog(t *testing.T, dir string) runLog {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "work", "runs.log"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return runLog{lines: strings.Split(strings.TrimSpace(string(data)), "\n")}
}

// finished counts, per address, the runs of operation that ended.
func (l runLog) finished(operation string) map[string]int {
	out := map[string]int{}
	for _, line := range l.lines {
		f := strings.Fields(line)
		if len(f) == 4 && f[2] == operation && f[3] == "end" {
			out[f[1]]++
		}
	}
	return out
}

// reruns lists the runs that the cluster's promise forbids: a run of an
// address's operation that started after another run of it had finished,
// unless that run's member was killed before it stored the result (then
// nobody could know it finished; actuators are idempotent). killed names
// the killed members' tags; stored says, for a tag, which addresses it
// stored results of.
func (l runLog) reruns(operation string, killed map[string]bool, stored func(tag string) map[string]bool) []string {
	ended := map[string][]string{} // address -> tags whose run ended
	var bad []string
	for _, line := range l.lines {
		f := strings.Fields(line)
		if len(f) != 4 || f[2] != operation {
			continue
		}
		tag, addr := f[0], f[1]
		switch f[3] {
		case "end":
			ended[addr] = append(ended[addr], tag)
		case "start":
			for _, e := range ended[addr] {
				if !killed[e] || stored(e)[addr] {
					bad = append(bad, fmt.Sprintf("%s %s ran again on %s after its run on %s had finished (result stored: %v, member killed: %v)",
						addr, operation, tag, e, stored(e)[addr], killed[e]))
				}
			}
		}
	}
	return bad
}

// TestSyncClusterLeaderKilledWhileAFollowerRunsItsActionsRunsNoneTwice: of
// two syncs, the leader is killed (SIGKILL) while the follower runs the
// creates the leader handed it (the leader's own finish at once). The
// follower finishes them, takes the lease, and uses their results: none
// of them runs again (issue 20: 1 to 12 of 12 ran twice); only a create
// the leader itself was running when it died may.
func TestSyncClusterLeaderKilledWhileAFollowerRunsItsActionsRunsNoneTwice(t *testing.T) {
	db := pgtest.NewDatabase(t)
	dir := runsDir(t)
	members := map[string]*syncMember{}
	for _, n := range []string{"m1", "m2"} {
		members[n] = startMember(t, dir, db, n, "--parallelism", "12")
	}
	testutil.WaitFor(t, 60*time.Second, "two live members and a leader", func() bool {
		return liveMembers(members["m1"]) == 2 && leaderOf(members["m1"]) != ""
	})
	leader := leaderOf(members["m1"])
	follower := "m1"
	if leader == "m1" {
		follower = "m2"
	}
	if err := os.WriteFile(filepath.Join(dir, "work", "fast"), []byte(leader+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	slow := nodes("slow", 12)
	clusterStack(t, dir, "g1", slow...)
	testutil.WaitFor(t, 90*time.Second, "every create to run (the leader's to finish)", func() bool {
		l := readRunLog(t, dir)
		n := 0
		for _, line := range l.lines {
			f := strings.Fields(line)
			if len(f) == 4 && f[2] == "Standard.create" && ((f[0] == follower && f[3] == "start") || (f[0] == leader && f[3] == "end")) {
				n++
			}
		}
		return n == len(slow)
	})
	members[leader].kill()
	t.Logf("killed the leader %s; the follower %s runs the rest", leader, follower)
	if err := os.WriteFile(filepath.Join(dir, "work", "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 90*time.Second, "the follower to lead and the stack to be applied", func() bool { return noChanges(t, dir, db) })
	l := readRunLog(t, dir)
	stored := func(tag string) map[string]bool {
		if m := members[tag]; m != nil {
			return reported(m)
		}
		return nil
	}
	for _, bad := range l.reruns("Standard.create", map[string]bool{leader: true}, stored) {
		t.Error(bad)
	}
	byFollower := 0
	for _, line := range l.lines {
		if f := strings.Fields(line); len(f) == 4 && f[0] == follower && f[2] == "Standard.create" && f[3] == "end" {
			byFollower++
		}
	}
	if byFollower == 0 {
		t.Errorf("the follower ran none of the creates: the test proves nothing:\n%s", strings.Join(l.lines, "\n"))
	}
	for _, a := range slow {
		if l.finished("Standard.create")[a] == 0 {
			t.Errorf("%s was never created", a)
		}
	}
}

// chaosLimit bounds TestSyncClusterSurvivesRandomKills.
const chaosLimit = 2 * time.Minute

// TestSyncClusterSurvivesRandomKills is a fault test in Jepsen's manner:
// three syncs share a workspace; 200 nodes are created, then 100 of them
// deleted (300 actions), while every 1.5 to 3 seconds a member is killed
// (SIGKILL), every other time the leader, and started again a moment
// later. Every run of an operation is counted (runOp logs its start and
// end). At the end the stack is applied, and no create or delete ran
// again after a run of it had finished, unless that run's member was
// killed before it stored its result (it could tell no one; actuators are
// idempotent). The test's whole run is bounded by chaosLimit.
func TestSyncClusterSurvivesRandomKills(t *testing.T) {
	if testing.Short() {
		t.Skip("a two-minute fault test: not under -short")
	}
	db := pgtest.NewDatabase(t)
	deadline := time.Now().Add(chaosLimit)
	dir := runsDir(t)
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	t.Logf("kill schedule seed %d", seed)
	names := []string{"m1", "m2", "m3"}
	current := map[string]*syncMember{}
	all := map[string]*syncMember{} // by tag
	instances := map[string]int{}
	start := func(n string) {
		instances[n]++
		// Each instance has a name of its own: a restarted member never
		// waits for its killed self's membership to lapse.
		tag := fmt.Sprintf("%s.%d", n, instances[n])
		m := startTagged(t, dir, db, tag, tag, "--parallelism", "4")
		current[n], all[tag] = m, m
	}
	for _, n := range names {
		start(n)
	}
	testutil.WaitFor(t, time.Until(deadline), "three live members and a leader", func() bool {
		return liveMembers(current["m1"]) == 3 && leaderOf(current["m1"]) != ""
	})
	killed := map[string]bool{}
	kills := 0
	// chaos kills and restarts members until done says the phase is over.
	chaos := func(phase string, done func() bool) {
		next := time.Now().Add(2 * time.Second)
		lastCheck := time.Now()
		for {
			if time.Now().After(deadline) {
				l := readRunLog(t, dir)
				t.Fatalf("%s: not done within %s (%d kills; %d creates and %d deletes finished)", phase, chaosLimit, kills,
					len(l.finished("Standard.create")), len(l.finished("Standard.delete")))
			}
			if time.Since(lastCheck) > 2*time.Second {
				lastCheck = time.Now()
				if done() {
					return
				}
			}
			if time.Now().After(next) {
				// Every other kill is the leader's (when one leads), the
				// others a random member's.
				n := names[rng.IntN(len(names))]
				if l := leaderOf(current[n]); kills%2 == 0 && l != "" {
					n, _, _ = strings.Cut(l, ".")
				}
				m := current[n]
				role := "a follower"
				if leaderOf(m) == m.tag {
					role = "the leader"
				}
				m.kill()
				killed[m.tag] = true
				kills++
				l := readRunLog(t, dir)
				t.Logf("%s: killed %s, %s (kill %d; %d creates and %d deletes finished so far)", phase, m.tag, role, kills,
					len(l.finished("Standard.create")), len(l.finished("Standard.delete")))
				time.Sleep(time.Duration(300+rng.IntN(700)) * time.Millisecond)
				start(n)
				next = time.Now().Add(time.Duration(1500+rng.IntN(1500)) * time.Millisecond)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	work := nodes("w", 200)
	clusterStack(t, dir, "g1", work...)
	chaos("creating 200", func() bool {
		return len(readRunLog(t, dir).finished("Standard.create")) == len(work) && noChanges(t, dir, db)
	})
	clusterStack(t, dir, "g1", work[:100]...)
	chaos("deleting 100", func() bool {
		return len(readRunLog(t, dir).finished("Standard.delete")) == 100 && noChanges(t, dir, db)
	})
	l := readRunLog(t, dir)
	stored := func(tag string) map[string]bool {
		if m := all[tag]; m != nil {
			return reported(m)
		}
		return nil
	}
	for _, op := range []string{"Standard.create", "Standard.delete"} {
		for _, bad := range l.reruns(op, killed, stored) {
			t.Error(bad)
		}
	}
	created, deleted := l.finished("Standard.create"), l.finished("Standard.delete")
	again := 0
	for _, n := range created {
		again += n - 1
	}
	for _, n := range deleted {
		again += n - 1
	}
	t.Logf("%d kills; 300 actions; %d runs finished more than once, each after its member was killed before storing the result", kills, again)
	if kills < 3 {
		t.Errorf("only %d kills: the test proves little", kills)
	}
}
