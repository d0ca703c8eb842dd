//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/pgbackend"
	"github.com/xosplan/xosplan/pkg/state/pgbackend/pgtest"
)

// markerStack is one node whose marker property comes from the input
// marker: every apply with another marker updates it. Its script fails
// the run if two of its operations ever overlap, and logs $RUN.
const markerStack = `tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  demo.Marker:
    derived_from: tosca.nodes.Root
    properties:
      marker:
        type: string
topology_template:
  inputs:
    marker:
      type: string
  node_templates:
    m:
      type: demo.Marker
      properties:
        marker: { get_input: marker }
      interfaces:
        Standard:
          create: op.sh
          configure: op.sh
          delete: op.sh
`

const markerOp = `set -eu
if ! mkdir "$WORK/held" 2>/dev/null; then echo "$RUN" >> "$WORK/overlap"; fi
echo "$RUN" >> "$WORK/runs.log"
sleep 0.05
rmdir "$WORK/held"
`

// readWorkspace loads a workspace's state with its journal.
func readWorkspace(t *testing.T, dsn, workspace string) *state.Loaded {
	t.Helper()
	ctx := context.Background()
	b, err := pgbackend.Open(ctx, pgbackend.Options{DSN: dsn, Name: workspace})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	l, err := b.LoadWithJournal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestPostgresApplyRaceHoldsTheLockOneAtATimeAndLosesNoUpdate starts 20
// applies of one workspace at once, each with its own marker: they wait
// for the lock (--lock-timeout), never run an operation beside another,
// and every one of them is recorded: the serial grows by one per apply and
// the state holds the marker of the apply that ran last.
func TestPostgresApplyRaceHoldsTheLockOneAtATimeAndLosesNoUpdate(t *testing.T) {
	const racers = 20
	db := pgtest.NewDatabase(t)
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	for name, body := range map[string]string{"stack.yaml": markerStack, "op.sh": markerOp} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out := runXosplan(t, dir, []string{"WORK=" + work, "RUN=0"}, "apply", "--auto-approve", "--state", db, "--var", "marker=v0", "stack.yaml"); code != 0 {
		t.Fatalf("first apply: exit %d\n%s", code, out)
	}
	start := time.Now()
	cmds := make([]*exec.Cmd, racers)
	outs := make([]bytes.Buffer, racers)
	for i := range cmds {
		run := strconv.Itoa(i + 1)
		cmds[i] = xosplanCmd(dir, []string{"WORK=" + work, "RUN=" + run},
			"apply", "--auto-approve", "--lock-timeout", "3m", "--state", db, "--var", "marker=v"+run, "stack.yaml")
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	hung := time.AfterFunc(4*time.Minute, func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
		}
	})
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("apply %d: %v\n%s", i+1, err, outs[i].String())
		}
	}
	if !hung.Stop() {
		t.Fatal("the racing applies did not end within 4 minutes")
	}
	t.Logf("%d racing applies took %s", racers, time.Since(start).Round(time.Millisecond))
	if overlap, err := os.ReadFile(filepath.Join(work, "overlap")); err == nil {
		t.Errorf("operations of these runs overlapped: %q", overlap)
	}
	// The first apply's create runs create and configure; each racer's
	// update runs configure.
	logged := strings.Fields(string(mustRead(t, filepath.Join(work, "runs.log"))))
	runs := slices.DeleteFunc(slices.Clone(logged), func(r string) bool { return r == "0" })
	if len(runs) != racers || !slices.Equal(logged[:len(logged)-racers], []string{"0", "0"}) {
		t.Fatalf("runs %v, want the first apply's then one run per racer", logged)
	}
	sorted := slices.Clone(runs)
	slices.SortFunc(sorted, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
	for i, r := range sorted {
		if r != strconv.Itoa(i+1) {
			t.Fatalf("runs %v: not every racer ran once", runs)
		}
	}
	l := readWorkspace(t, db, "default")
	if l.Replayed != 0 || len(l.Interrupted) != 0 {
		t.Errorf("journal left: %d outcomes, %d interrupted", l.Replayed, len(l.Interrupted))
	}
	if l.State.Serial != racers+1 {
		t.Errorf("serial %d, want %d: one per apply", l.State.Serial, racers+1)
	}
	m, ok := l.State.Lookup("m")
	if !ok {
		t.Fatal("the state lost m")
	}
	props, _ := m.Spec["properties"].(map[string]graph.Value)
	if last := runs[racers-1]; props["marker"] != "v"+last {
		t.Fatalf("the state holds marker %v, want the marker of the last run v%s", props["marker"], last)
	}
}

// queryStrings returns the first column of a query's rows as text, nil
// when the query fails (a server that is down).
func queryStrings(dsn, sql string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, _ := pgtest.Query(ctx, dsn, sql)
	return out
}

// TestPostgresKilledLockHolderReleasesTheLock kills -9 an apply holding a
// workspace's lock in the middle of an operation: the lock goes with its
// connection, so the next apply (waiting with --lock-timeout) takes it,
// sees the interrupted operation and finishes the work.
func TestPostgresKilledLockHolderReleasesTheLock(t *testing.T) {
	const nodes = 6
	db := pgtest.NewDatabase(t)
	dir := writeStack(t, nodes, "0")
	work := filepath.Join(dir, "work")
	gate := filepath.Join(dir, "gate")
	create := "set -eu\nmkdir -p \"$XOSPLAN_WORKDIR\"\nif [ \"$XOSPLAN_ADDRESS\" = n02 ]; then\n" +
		"  : > \"$XOSPLAN_WORKDIR/started\"\n  while [ ! -e \"$GATE\" ]; do sleep 0.02; done\nfi\n: > \"$XOSPLAN_WORKDIR/$XOSPLAN_ADDRESS\"\n"
	if err := os.WriteFile(filepath.Join(dir, "scripts", "create.sh"), []byte(create), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"XOSPLAN_WORKDIR=" + work, "GATE=" + gate}
	first := xosplanCmd(dir, env, "apply", "--auto-approve", "--parallelism", "1", "--state", db, "stack.yaml")
	var out bytes.Buffer
	first.Stdout, first.Stderr = &out, &out
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = first.Process.Kill(); _ = first.Wait() })
	testutil.WaitFor(t, time.Minute, "the gated create", func() bool { _, err := os.Stat(filepath.Join(work, "started")); return err == nil })
	if holders := queryStrings(db, `SELECT info->>'Operation' FROM xosplan_lock`); !slices.Equal(holders, []string{"apply"}) {
		t.Fatalf("lock rows %v while the apply runs, want one of apply", holders)
	}
	_ = first.Process.Kill()
	_ = first.Wait()
	killed := time.Now()
	b, err := pgbackend.Open(context.Background(), pgbackend.Options{DSN: db, LockTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	held, err := b.Lock(context.Background(), state.LockInfo{Operation: "check"})
	if err != nil {
		t.Fatalf("the killed holder's lock was kept: %v", err)
	}
	t.Logf("lock free %s after kill -9 of its holder", time.Since(killed).Round(time.Millisecond))
	_ = held.Unlock()
	_ = b.Close()

	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out2 := runXosplan(t, dir, env, "apply", "--auto-approve", "--lock-timeout", "30s", "--state", db, "stack.yaml")
	if code != 0 {
		t.Fatalf("apply after the kill: exit %d\n%s", code, out2)
	}
	l := readWorkspace(t, db, "default")
	if len(l.State.Resources) != nodes {
		t.Fatalf("state holds %d resources, want %d\n%s", len(l.State.Resources), nodes, out2)
	}
	for _, r := range l.State.Resources {
		if r.Feedback.BackendCode != state.BackendOK {
			t.Errorf("%s: backend_code %d", r.Address, r.Feedback.BackendCode)
		}
	}
}

// TestPostgresKilledServerLosesNoAcknowledgedOperation kills -9 the
// test's own PostgreSQL (by its PID) while an apply runs: xosplan fails
// saying the state database went away, every operation whose outcome the
// database had acknowledged is in the state once the server is back, and
// the next apply finishes the rest.
func TestPostgresKilledServerLosesNoAcknowledgedOperation(t *testing.T) {
	pgtest.DSN(t) // skips without a test server, like every PostgreSQL test
	const nodes = 12
	ctx := context.Background()
	srv, err := pgtest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	db := pgtest.CreateDatabase(t, srv.DSN)
	dir := writeStack(t, nodes, "0.1")
	env := []string{"XOSPLAN_WORKDIR=" + filepath.Join(dir, "work")}
	cmd := xosplanCmd(dir, env, "apply", "--auto-approve", "--parallelism", "1", "--state", db, "stack.yaml")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var acked []string
	testutil.WaitFor(t, time.Minute, "three acknowledged outcomes", func() bool {
		acked = queryStrings(db, `SELECT address FROM xosplan_journal WHERE kind = 'outcome' ORDER BY seq`)
		return len(acked) >= 3
	})
	t.Logf("kill -9 of PostgreSQL (pid %d) with %d outcomes acknowledged", srv.PID(), len(acked))
	srv.Kill()
	killed := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("xosplan did not end within 2 minutes of the database's death:\n%s", out.String())
	}
	t.Logf("xosplan ended %s after kill -9 of PostgreSQL; %d outcomes acknowledged before", time.Since(killed).Round(time.Millisecond), len(acked))
	msg := out.String()
	if err == nil || strings.Count(msg, "Error:") != 1 || !strings.Contains(msg, "the connection to the state database holding the lock was lost") ||
		!strings.Contains(msg, "run apply again") {
		t.Fatalf("xosplan did not report the lost database clearly (%v):\n%s", err, msg)
	}
	if strings.Contains(msg, "goroutine ") || strings.Contains(msg, "panic") {
		t.Fatalf("a stack trace:\n%s", msg)
	}
	t.Logf("xosplan said: %s", msg[strings.LastIndex(msg, "Error:"):])
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	l := readWorkspace(t, db, "default")
	for _, a := range acked {
		if r, ok := l.State.Lookup(a); !ok || r.Feedback.BackendCode != state.BackendOK {
			t.Errorf("the acknowledged create of %s is lost", a)
		}
	}
	code, out2 := runXosplan(t, dir, env, "apply", "--auto-approve", "--state", db, "stack.yaml")
	if code != 0 {
		t.Fatalf("apply once the database is back: exit %d\n%s", code, out2)
	}
	if l := readWorkspace(t, db, "default"); len(l.State.Resources) != nodes {
		t.Fatalf("state holds %d resources after recovery, want %d", len(l.State.Resources), nodes)
	}
}

// TestPostgresPasswordNeverShown runs succeeding and failing commands
// with a connection string holding a password (URL, key=value, and a
// malformed URL) and finds it in none of their outputs, nor in the plan
// file, nor in what the database records.
func TestPostgresPasswordNeverShown(t *testing.T) {
	const pw = "Pw-7f3a9-s3cr3t"
	db := pgtest.NewDatabase(t)
	withPW := strings.Replace(db, "://xosplan@", "://xosplan:"+pw+"@", 1)
	hostPort := strings.SplitN(strings.TrimPrefix(db, "postgres://xosplan@"), "/", 2)[0]
	dir := writeStack(t, 3, "0")
	env := []string{"XOSPLAN_WORKDIR=" + filepath.Join(dir, "work")}
	runs := []struct {
		args []string
		ok   bool
	}{
		{[]string{"apply", "--auto-approve", "--state", withPW, "stack.yaml"}, true},
		{[]string{"plan", "--state", withPW, "--out", "plan.json", "stack.yaml"}, true},
		{[]string{"show", "plan.json"}, true},
		{[]string{"state", "list", "--state", withPW}, true},
		{[]string{"state", "pull", "--state", withPW}, true},
		{[]string{"workspace", "list", "--state", withPW}, true},
		{[]string{"state", "list", "--state", withPW, "--workspace", "missing"}, false},
		{[]string{"state", "list", "--state", strings.Replace(withPW, hostPort, "127.0.0.1:1", 1)}, false},
		{[]string{"state", "list", "--state", "host=127.0.0.1 port=1 user=xosplan password=" + pw + " dbname=x"}, false},
		{[]string{"state", "list", "--state", "host=127.0.0.1 port=1 user=xosplan password='" + pw + "' dbname=x"}, false},
		{[]string{"state", "list", "--state", "postgres://xosplan:" + pw + "@127.0.0.1:notaport/x"}, false},
		// A keyword this xosplan does not know still makes a connection
		// string, never a file named after the password.
		{[]string{"apply", "--auto-approve", "--state", "krbsrvname=x host=127.0.0.1 port=1 password=" + pw, "stack.yaml"}, false},
		{[]string{"state", "force-unlock", "--state", withPW, "no-such-lock"}, false},
	}
	for _, r := range runs {
		code, out := runXosplan(t, dir, env, r.args...)
		if (code == 0) != r.ok {
			t.Errorf("xosplan %s: exit %d\n%s", strings.Join(r.args, " "), code, out)
		}
		if strings.Contains(out, pw) {
			t.Errorf("xosplan %s shows the password:\n%s", strings.Join(r.args, " "), out)
		}
	}
	if strings.Contains(string(mustRead(t, filepath.Join(dir, "plan.json"))), pw) {
		t.Error("the plan file holds the password")
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*"+pw+"*")); len(names) > 0 {
		t.Errorf("files named after the password: %v", names)
	}
	for _, q := range []string{`SELECT convert_from(data, 'UTF8') FROM xosplan_state`, `SELECT info::text FROM xosplan_lock`} {
		for _, v := range queryStrings(db, q) {
			if strings.Contains(v, pw) {
				t.Errorf("%s: the database records the password", q)
			}
		}
	}
}

// TestPostgresWorkspacesAndMigrateKeepLineage creates a workspace,
// applies into it, refuses to delete it while it records resources,
// migrates it to a file and back into another workspace with its lineage
// and serial, and deletes it with --force.
func TestPostgresWorkspacesAndMigrateKeepLineage(t *testing.T) {
	db := pgtest.NewDatabase(t)
	dir := writeStack(t, 3, "0")
	env := []string{"XOSPLAN_WORKDIR=" + filepath.Join(dir, "work"), "XOSPLAN_STATE=" + db}
	run := func(wantOK bool, args ...string) string {
		t.Helper()
		code, out := runXosplan(t, dir, env, args...)
		if (code == 0) != wantOK {
			t.Fatalf("xosplan %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		return out
	}
	if out := run(false, "plan", "--workspace", "staging", "stack.yaml"); !strings.Contains(out, "workspace new staging") {
		t.Errorf("a missing workspace does not say how to create it:\n%s", out)
	}
	run(true, "workspace", "new", "staging")
	run(true, "workspace", "new", "prod")
	run(true, "apply", "--auto-approve", "--workspace", "staging", "stack.yaml")
	if out := run(true, "workspace", "list", "--workspace", "staging"); out != "  default\n  prod\n* staging\n" {
		t.Errorf("workspace list:\n%s", out)
	}
	if out := run(false, "workspace", "delete", "staging"); !strings.Contains(out, "not empty") {
		t.Errorf("deleting a workspace with resources:\n%s", out)
	}
	run(false, "workspace", "delete", "default")
	staging := readWorkspace(t, db, "staging").State
	file := filepath.Join(dir, "copy.json")
	run(true, "state", "migrate", "--workspace", "staging", "--from", db, "--to", file)
	copied, err := state.Decode(mustRead(t, file))
	if err != nil {
		t.Fatal(err)
	}
	run(true, "state", "migrate", "--workspace", "prod", "--from", file, "--to", db)
	run(false, "state", "migrate", "--workspace", "prod", "--from", file, "--to", db)
	prod := readWorkspace(t, db, "prod").State
	for _, s := range []*state.State{copied, prod} {
		if s.Lineage != staging.Lineage || s.Serial != staging.Serial || len(s.Resources) != 3 {
			t.Errorf("migrated state: lineage %s serial %d, %d resources; want %s, %d, 3", s.Lineage, s.Serial, len(s.Resources), staging.Lineage, staging.Serial)
		}
	}
	if out := run(true, "plan", "--detailed-exitcode", "--workspace", "prod", "stack.yaml"); !strings.Contains(out, "No changes.") {
		t.Errorf("the migrated workspace plans changes:\n%s", out)
	}
	run(true, "workspace", "delete", "--force", "staging")
	if out := run(true, "workspace", "list"); out != "* default\n  prod\n" {
		t.Errorf("workspace list after delete:\n%s", fmt.Sprint(out))
	}
}

// TestPostgresConnectionStringForms: a key=value string and a URL that
// leaves host, port, user and sslmode to the PG* variables reach the same
// state as the full URL.
func TestPostgresConnectionStringForms(t *testing.T) {
	db := pgtest.NewDatabase(t)
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	dir := writeStack(t, 2, "0")
	env := []string{"XOSPLAN_WORKDIR=" + filepath.Join(dir, "work")}
	if code, out := runXosplan(t, dir, env, "apply", "--auto-approve", "--state", db, "stack.yaml"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, out)
	}
	forms := []struct {
		state string
		env   []string
	}{
		{fmt.Sprintf("host=%s port=%s user=xosplan dbname=%s sslmode=disable", u.Hostname(), u.Port(), name), nil},
		{"postgres:///" + name, []string{"PGHOST=" + u.Hostname(), "PGPORT=" + u.Port(), "PGUSER=xosplan", "PGSSLMODE=disable"}},
		{"", []string{"XOSPLAN_STATE=postgresql://xosplan@" + u.Host + "/" + name + "?sslmode=disable"}},
	}
	for _, f := range forms {
		args := []string{"plan", "--detailed-exitcode", "stack.yaml"}
		if f.state != "" {
			args = append(args, "--state", f.state)
		}
		if code, out := runXosplan(t, dir, append(slices.Clone(env), f.env...), args...); code != 0 || !strings.Contains(out, "No changes.") {
			t.Errorf("plan with --state %q %v: exit %d\n%s", f.state, f.env, code, out)
		}
	}
}

// TestPostgresPlanFileIsBoundToItsWorkspace: a plan made against workspace
// staging records it (and never the password of the connection string);
// applied to another workspace, by flag or by XOSPLAN_WORKSPACE, it is
// refused naming both; without a connection string it is refused rather
// than applied to a state file; the command plan prints applies it to
// staging and nothing else; applied once more it is stale; and with no
// workspace chosen apply takes the plan's.
func TestPostgresPlanFileIsBoundToItsWorkspace(t *testing.T) {
	const pw = "Pw-bound-8c1d5e"
	db := pgtest.NewDatabase(t)
	withPW := strings.Replace(db, "://xosplan@", "://xosplan:"+pw+"@", 1)
	dir := writeStack(t, 3, "0")
	run := func(wantOK bool, env []string, args ...string) string {
		t.Helper()
		code, out := runXosplan(t, dir, append([]string{"XOSPLAN_WORKDIR=" + filepath.Join(dir, "work")}, env...), args...)
		if (code == 0) != wantOK {
			t.Fatalf("xosplan %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		if strings.Contains(out, pw) {
			t.Errorf("xosplan %s shows the password:\n%s", strings.Join(args, " "), out)
		}
		return out
	}
	run(true, nil, "workspace", "new", "--state", db, "staging")
	out := run(true, nil, "plan", "--state", withPW, "--workspace", "staging", "--out", "staging.plan", "stack.yaml")
	hint := "xosplan apply --state " + shellQuote(db) + " --workspace staging staging.plan"
	hinted := []string{"apply", "--state", db, "--workspace", "staging", "staging.plan"}
	if !strings.Contains(out, "\n    "+hint+"\n") {
		t.Fatalf("plan does not print %q:\n%s", hint, out)
	}
	saved := string(mustRead(t, filepath.Join(dir, "staging.plan")))
	if !strings.Contains(saved, `"workspace":"staging"`) || !strings.Contains(saved, `"backend":"postgres"`) || strings.Contains(saved, pw) || strings.Contains(saved, "xosplan@") {
		t.Errorf("the plan file does not record the state as it should: %.600s", saved)
	}
	for _, tc := range []struct {
		env  []string
		args []string
		want []string
	}{
		{nil, []string{"apply", "--state", db, "--workspace", "default", "staging.plan"}, []string{"was made against another state", "workspace staging", "workspace default"}},
		{[]string{"XOSPLAN_WORKSPACE=default"}, []string{"apply", "--state", db, "staging.plan"}, []string{"was made against another state", "workspace staging", "workspace default"}},
		{nil, []string{"apply", "staging.plan"}, []string{"give its connection string with --state or XOSPLAN_STATE"}},
	} {
		out := run(false, tc.env, tc.args...)
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v xosplan %s: the error does not say %q:\n%s", tc.env, strings.Join(tc.args, " "), w, out)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, state.DefaultPath)); err == nil {
		t.Error("a refused apply wrote a state file")
	}
	run(true, nil, hinted...)
	if n := len(readWorkspace(t, db, "default").State.Resources); n != 0 {
		t.Errorf("the staging plan recorded %d resources in workspace default", n)
	}
	if n := len(readWorkspace(t, db, "staging").State.Resources); n != 3 {
		t.Errorf("workspace staging records %d resources, want 3", n)
	}
	if out := run(false, nil, hinted...); !strings.Contains(out, "stale") {
		t.Errorf("the plan applied a second time is not refused as stale:\n%s", out)
	}
	run(true, nil, "plan", "--state", db, "--workspace", "staging", "--destroy", "--out", "destroy.plan", "stack.yaml")
	run(true, nil, "apply", "--state", db, "destroy.plan")
	if n := len(readWorkspace(t, db, "staging").State.Resources); n != 0 {
		t.Errorf("the destroy plan, applied with no workspace chosen, left %d resources in staging", n)
	}
}

// TestPostgresWorkspaceSelectPersists: workspace select records the
// workspace in .xosplan/environment, and later commands in that folder
// use it (plan, apply, list's "*", show) unless XOSPLAN_WORKSPACE or
// --workspace names another; a workspace that does not exist cannot be
// selected, and the selected one cannot be deleted.
func TestPostgresWorkspaceSelectPersists(t *testing.T) {
	db := pgtest.NewDatabase(t)
	dir := writeStack(t, 3, "0")
	env := []string{"XOSPLAN_WORKDIR=" + filepath.Join(dir, "work"), "XOSPLAN_STATE=" + db}
	run := func(wantOK bool, extra []string, args ...string) string {
		t.Helper()
		code, out := runXosplan(t, dir, append(slices.Clone(env), extra...), args...)
		if (code == 0) != wantOK {
			t.Fatalf("xosplan %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		return out
	}
	run(true, nil, "workspace", "new", "staging")
	if out := run(false, nil, "workspace", "select", "nope"); !strings.Contains(out, "workspace new nope") {
		t.Errorf("selecting a missing workspace:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".xosplan", "environment")); err == nil {
		t.Fatal("a refused select recorded a workspace")
	}
	if out := run(true, nil, "workspace", "select", "staging"); out != "Switched to workspace \"staging\".\n" {
		t.Errorf("select: %q", out)
	}
	if got := string(mustRead(t, filepath.Join(dir, ".xosplan", "environment"))); got != "staging\n" {
		t.Errorf(".xosplan/environment holds %q", got)
	}
	if out := run(true, nil, "workspace", "show"); out != "staging\n" {
		t.Errorf("show: %q", out)
	}
	if out := run(true, nil, "workspace", "list"); out != "  default\n* staging\n" {
		t.Errorf("list:\n%s", out)
	}
	run(true, nil, "apply", "--auto-approve", "stack.yaml")
	if n := len(readWorkspace(t, db, "staging").State.Resources); n != 3 {
		t.Errorf("the selected workspace records %d resources, want 3", n)
	}
	if n := len(readWorkspace(t, db, "default").State.Resources); n != 0 {
		t.Errorf("default records %d resources, want none", n)
	}
	// The environment and the flag win over the selection.
	if out := run(true, []string{"XOSPLAN_WORKSPACE=default"}, "plan", "stack.yaml"); !strings.Contains(out, "Plan: 3 to add") {
		t.Errorf("XOSPLAN_WORKSPACE=default does not win over the selection:\n%s", out)
	}
	if out := run(true, nil, "plan", "--workspace", "default", "stack.yaml"); !strings.Contains(out, "Plan: 3 to add") {
		t.Errorf("--workspace default does not win over the selection:\n%s", out)
	}
	if out := run(true, nil, "plan", "stack.yaml"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan in the selected workspace:\n%s", out)
	}
	if out := run(false, nil, "workspace", "delete", "--force", "staging"); !strings.Contains(out, "select another first") {
		t.Errorf("deleting the selected workspace:\n%s", out)
	}
	run(true, nil, "workspace", "select", "default")
	run(true, nil, "workspace", "delete", "--force", "staging")
}
