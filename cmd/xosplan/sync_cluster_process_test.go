//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/pgbackend/pgtest"
	xsync "github.com/xosplan/xosplan/pkg/sync"
)

// clusterLease is the --lease of these tests' syncs.
const clusterLease = 2 * time.Second

// clusterOp is every operation of the cluster tests' stacks: it logs the
// member that runs it ($TAG), the resource and the operation, then takes
// a while; a create of a node named slow* waits for $WORK/release.
const clusterOp = `set -eu
echo "$TAG $XOSPLAN_ADDRESS $XOSPLAN_OPERATION" >> "$WORK/runs.log"
case "$XOSPLAN_ADDRESS.$XOSPLAN_OPERATION" in
slow*.Standard.create)
	echo "$TAG" > "$WORK/$XOSPLAN_ADDRESS.started"
	i=0; until [ -e "$WORK/release" ] || [ $i -ge 600 ]; do sleep 0.1; i=$((i+1)); done ;;
*) sleep "${DELAY:-0.3}" ;;
esac
`

// clusterStack writes stack.yaml: the nodes given, each with a property
// gen of the value given and the three operations.
func clusterStack(t *testing.T, dir, gen string, nodes ...string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  demo.Work:
    derived_from: tosca.nodes.Root
    properties:
      gen:
        type: string
    interfaces:
      Standard:
        operations:
          create: op.sh
          configure: op.sh
          delete: op.sh
topology_template:
  node_templates:
`)
	if len(nodes) == 0 {
		b.WriteString("    {}\n")
	}
	for _, n := range nodes {
		fmt.Fprintf(&b, "    %s:\n      type: demo.Work\n      properties: { gen: %s }\n", n, gen)
	}
	// Written aside and renamed, so that a sync's watch never reads half.
	tmp := filepath.Join(dir, ".stack.tmp")
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "stack.yaml")); err != nil {
		t.Fatal(err)
	}
}

// syncMember is one `xosplan sync` process of a cluster.
type syncMember struct {
	name string
	tag  string // what its operations log as their member
	cmd  *exec.Cmd
	out  *testutil.Buffer
	addr string // its --listen-file
	done chan struct{}
}

// startMember starts a sync member named name on the workspace of db.
func startMember(t *testing.T, dir, db, name string, extra ...string) *syncMember {
	t.Helper()
	return startTagged(t, dir, db, name, name, extra...)
}

// startTagged starts a sync member named name whose operations log tag
// as the member that ran them.
func startTagged(t *testing.T, dir, db, name, tag string, extra ...string) *syncMember {
	t.Helper()
	m := &syncMember{name: name, tag: tag, out: &testutil.Buffer{}, addr: filepath.Join(dir, name+".addr"), done: make(chan struct{})}
	args := append([]string{"sync", "--state", db, "--member-name", name, "--lease", clusterLease.String(), "--health-interval", "1h",
		"--debounce", "100ms", "--poll-interval", "1s", "--retry-base", "1s", "--grace", "2s",
		"--listen", "127.0.0.1:0", "--listen-file", m.addr}, extra...)
	m.cmd = xosplanCmd(dir, []string{"TAG=" + tag, "WORK=" + filepath.Join(dir, "work")}, append(args, "stack.yaml")...)
	m.cmd.Stdout, m.cmd.Stderr = m.out, m.out
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = m.cmd.Wait()
		close(m.done)
	}()
	t.Cleanup(func() {
		_ = m.cmd.Process.Signal(os.Interrupt)
		select {
		case <-m.done:
		case <-time.After(20 * time.Second):
			_ = m.cmd.Process.Kill()
			<-m.done
		}
		if t.Failed() {
			t.Logf("log of %s:\n%s", m.tag, m.out.String())
		}
	})
	return m
}

// kill ends the member with SIGKILL.
func (m *syncMember) kill() {
	_ = m.cmd.Process.Signal(syscall.SIGKILL)
	<-m.done
}

// status asks the member's API; false when it does not answer.
func (m *syncMember) status() (xsync.Status, bool) {
	var st xsync.Status
	addr, err := os.ReadFile(m.addr)
	if err != nil {
		return st, false
	}
	client := http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + strings.TrimSpace(string(addr)) + "/v1/status")
	if err != nil {
		return st, false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return st, json.Unmarshal(body, &st) == nil && st.Cluster != nil
}

// leaderOf returns the name (--member-name) of the member that leads, as
// m sees it; "" while none does.
func leaderOf(m *syncMember) string {
	st, ok := m.status()
	if !ok || st.Cluster.Leader == "" {
		return ""
	}
	name, _, _ := strings.Cut(st.Cluster.Leader, ":")
	return name
}

// liveMembers counts the members m sees alive.
func liveMembers(m *syncMember) int {
	st, ok := m.status()
	if !ok {
		return 0
	}
	n := 0
	for _, mm := range st.Cluster.Members {
		if mm.Alive {
			n++
		}
	}
	return n
}

// runs reads the operations run so far: "member address operation" lines.
func runs(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "work", "runs.log"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// countRuns counts the runs of operation (Standard.create, …) per address
// and per member.
func countRuns(lines []string, operation string) (perAddr, perMember map[string]int) {
	perAddr, perMember = map[string]int{}, map[string]int{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 3 && f[2] == operation {
			perAddr[f[1]]++
			perMember[f[0]]++
		}
	}
	return perAddr, perMember
}

func clusterDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "op.sh"), []byte(clusterOp), 0o755); err != nil {
		t.Fatal(err)
	}
	clusterStack(t, dir, "g1")
	return dir
}

func nodes(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%02d", prefix, i)
	}
	return out
}

// noChanges reports whether a plan of the directory's stack against db
// says "No changes.".
func noChanges(t *testing.T, dir, db string) bool {
	t.Helper()
	code, out := runXosplan(t, dir, nil, "plan", "--detailed-exitcode", "--state", db, "stack.yaml")
	return code == 0 && strings.Contains(out, "No changes.")
}

// TestSyncClusterSpreadsTheWorkAndSurvivesItsLeader: three syncs share a
// PostgreSQL workspace. One leads; the 24 creates of a new stack are
// spread over all three, each run once. The leader is killed (SIGKILL) in
// the middle of the next reconcile (an update of every node): another
// member leads within the lease, finishes the reconcile, and nothing ran
// more than twice (an action interrupted with its member may run again:
// actuators are idempotent); the state then has nothing left to do.
func TestSyncClusterSpreadsTheWorkAndSurvivesItsLeader(t *testing.T) {
	db := pgtest.NewDatabase(t)
	dir := clusterDir(t)
	members := map[string]*syncMember{}
	for _, n := range []string{"m1", "m2", "m3"} {
		members[n] = startMember(t, dir, db, n, "--parallelism", "2")
	}
	testutil.WaitFor(t, 60*time.Second, "three live members and a leader", func() bool {
		return liveMembers(members["m1"]) == 3 && leaderOf(members["m1"]) != ""
	})
	work := nodes("w", 24)
	clusterStack(t, dir, "g1", work...)
	testutil.WaitFor(t, 90*time.Second, "the 24 creates", func() bool {
		perAddr, _ := countRuns(runs(t, dir), "Standard.create")
		return len(perAddr) == 24
	})
	testutil.WaitFor(t, 30*time.Second, "the stack to be applied", func() bool { return noChanges(t, dir, db) })
	perAddr, perMember := countRuns(runs(t, dir), "Standard.create")
	for _, n := range []string{"m1", "m2", "m3"} {
		if perMember[n] == 0 {
			t.Errorf("member %s ran none of the creates: %v", n, perMember)
		}
	}
	for a, c := range perAddr {
		if c != 1 {
			t.Errorf("%s was created %d times", a, c)
		}
	}
	t.Logf("creates per member: %v", perMember)

	// The next reconcile updates every node; the leader dies in it.
	leader := leaderOf(members["m1"])
	clusterStack(t, dir, "g2", work...)
	testutil.WaitFor(t, 60*time.Second, "the update to start", func() bool {
		perAddr, _ := countRuns(runs(t, dir), "Standard.configure")
		return len(perAddr) >= 4
	})
	killed := time.Now()
	members[leader].kill()
	var survivor *syncMember
	for n, m := range members {
		if n != leader {
			survivor = m
		}
	}
	testutil.WaitFor(t, 10*clusterLease, "another member to lead", func() bool {
		l := leaderOf(survivor)
		return l != "" && l != leader
	})
	t.Logf("%s led again %s after %s was killed (lease %s)", leaderOf(survivor), time.Since(killed).Round(time.Millisecond), leader, clusterLease)
	testutil.WaitFor(t, 90*time.Second, "the update to finish", func() bool { return noChanges(t, dir, db) })
	configured, _ := countRuns(runs(t, dir), "Standard.configure")
	for _, a := range work {
		if c := configured[a]; c < 1 || c > 2 {
			t.Errorf("%s was configured %d times, want once (twice at most, when its run was interrupted)", a, c)
		}
	}
	created, _ := countRuns(runs(t, dir), "Standard.create")
	for a, c := range created {
		if c != 1 {
			t.Errorf("%s was created %d times", a, c)
		}
	}
	l := readWorkspace(t, db, "default")
	if len(l.State.Resources) != 24 {
		t.Errorf("the state holds %d resources, want 24", len(l.State.Resources))
	}
}

// TestSyncClusterHandsTheActionOfAKilledMemberToAnother: a member that is
// not the leader is killed (SIGKILL) while it runs an action; the leader
// hands the action to another member, which runs it to the end, and the
// journal holds both attempts, each naming its member.
func TestSyncClusterHandsTheActionOfAKilledMemberToAnother(t *testing.T) {
	db := pgtest.NewDatabase(t)
	dir := clusterDir(t)
	members := map[string]*syncMember{}
	for _, n := range []string{"m1", "m2", "m3"} {
		members[n] = startMember(t, dir, db, n)
	}
	testutil.WaitFor(t, 60*time.Second, "three live members and a leader", func() bool {
		return liveMembers(members["m1"]) == 3 && leaderOf(members["m1"]) != ""
	})
	leader := leaderOf(members["m1"])
	release := filepath.Join(dir, "work", "release")
	var slow []string
	for try := range 12 {
		// River gives the action to whichever member fetches first: until
		// it lands on a member that is not the leader, let it finish.
		node := fmt.Sprintf("slow%02d", try)
		slow = append(slow, node)
		started := filepath.Join(dir, "work", node+".started")
		_ = os.Remove(release)
		clusterStack(t, dir, "g1", slow...)
		var runner string
		testutil.WaitFor(t, 60*time.Second, node+" to start", func() bool { runner = startedBy(started); return runner != "" })
		if runner == leader {
			if err := os.WriteFile(release, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			testutil.WaitFor(t, 30*time.Second, node+" to be created", func() bool { return noChanges(t, dir, db) })
			continue
		}
		if err := os.Remove(started); err != nil {
			t.Fatal(err)
		}
		// Killed once the leader has recorded that the member runs it
		// (a member killed in the instant after it started a process may
		// never have said so: then only the first intent names nobody).
		testutil.WaitFor(t, 30*time.Second, "the journal to name "+runner, func() bool { return len(intentMembers(t, db, node)) == 1 })
		members[runner].kill()
		var second string
		testutil.WaitFor(t, 10*clusterLease, node+" to start again on another member", func() bool { second = startedBy(started); return second != "" })
		if second == runner {
			t.Fatalf("%s started again on %s, which was killed", node, runner)
		}
		attempts := intentMembers(t, db, node)
		if len(attempts) != 2 || !strings.HasPrefix(attempts[0], runner+":") || !strings.HasPrefix(attempts[1], second+":") {
			t.Errorf("the journal's intents of %s name the members %v, want %s's then %s's", node, attempts, runner, second)
		}
		if err := os.WriteFile(release, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		testutil.WaitFor(t, 60*time.Second, node+" to be created", func() bool { return noChanges(t, dir, db) })
		if leaderOf(members[second]) != leader {
			t.Errorf("the leader changed from %s to %s, though only a worker died", leader, leaderOf(members[second]))
		}
		return
	}
	t.Fatal("in 12 tries, River never gave the slow action to a member that does not lead")
}

// intentMembers lists, in order, the members the journal's intents of
// addr name (the process groups they started).
func intentMembers(t *testing.T, db, addr string) []string {
	t.Helper()
	rows, err := pgtest.Query(context.Background(), db, `SELECT convert_from(record, 'UTF8') FROM xosplan_journal
		WHERE workspace = 'default' AND address = '`+addr+`' AND kind = 'intent' ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		rec, err := state.DecodeRecord([]byte(r))
		if err != nil {
			t.Fatalf("journal row %q: %v", r, err)
		}
		if rec.Process != nil {
			out = append(out, rec.Process.Member)
		}
	}
	return out
}

// startedBy is the member a slow node's script names in its start marker,
// "" until the marker is written: the script's shell creates the file
// before it writes the name, so a marker that exists may still be empty
// (the test once read "" there and named no second member).
func startedBy(marker string) string {
	b, err := os.ReadFile(marker)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
