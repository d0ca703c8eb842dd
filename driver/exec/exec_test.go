//go:build unix

package exec

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/driver/drivertest"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/process"
	"github.com/xosplan/xosplan/pkg/state"
)

// execResource is a TOSCA node with the given operations (key →
// implementation).
func execResource(addr string, ops map[string]graph.Operation) *graph.Resource {
	return &graph.Resource{Address: addr, Type: "tosca.nodes.SoftwareComponent", Driver: graph.Driver{Name: graph.DriverExec, Operations: ops}, Management: graph.Managed}
}

func TestExecLifecycle(t *testing.T) {
	dir := t.TempDir()
	stateDir := t.TempDir()
	// Every operation logs its name, its inputs and the xosplan variables.
	body := `echo "$XOSPLAN_OPERATION $XOSPLAN_ACTION $XOSPLAN_ADDRESS port=$port flag=$flag list=$list pwd=$(pwd)" >> "$XOSPLAN_STATE_DIR/log"
echo "stdout of $XOSPLAN_OPERATION"; echo "stderr of $XOSPLAN_OPERATION" >&2
`
	for _, op := range []string{"create", "configure", "start", "stop", "delete", "pre"} {
		testutil.WriteScript(t, dir, "scripts/"+op+".sh", body)
	}
	testutil.WriteScript(t, dir, "scripts/outputs.sh", body+`echo "ip=10.0.0.7" >> "$XOSPLAN_OUTPUTS"
printf 'motd<<EOF\nline one\nline=two\nEOF\n' >> "$XOSPLAN_OUTPUTS"
echo "url=http://x/?a=b" >> "$XOSPLAN_OUTPUTS"
`)
	ops := map[string]graph.Operation{
		"Standard.create":                 {Implementation: "scripts/create.sh", Inputs: map[string]graph.Value{"port": int64(8080), "flag": true, "list": []graph.Value{"a", int64(1)}}},
		"Standard.configure":              {Implementation: "scripts/outputs.sh", Outputs: map[string]string{"ip": "private_address"}},
		"Standard.start":                  {Implementation: "scripts/start.sh"},
		"Standard.stop":                   {Implementation: "scripts/stop.sh"},
		"Standard.delete":                 {Implementation: "scripts/delete.sh"},
		"Configure.pre_configure_source":  {Implementation: "scripts/pre.sh"},
		"Configure.post_configure_target": {Inputs: map[string]graph.Value{"x": "no implementation: skipped"}},
	}
	r := execResource("web", ops)
	opts := drivertest.Options("")
	opts.StateDir = stateDir
	d := New(opts)
	var out drivertest.Lines
	o, err := d.Apply(context.Background(), driver.Request{Action: driver.ActionCreate, Address: "web", Resource: r, WorkDir: dir, Output: out.Add,
		Inputs: map[string]map[string]graph.Value{"Standard.start": {"port": "resolved-by-walk"}}})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	log, _ := os.ReadFile(filepath.Join(stateDir, "log"))
	wantLog := []string{
		"Standard.create create web port=8080 flag=true list=[\"a\",1] pwd=" + dir,
		"Configure.pre_configure_source create web port= flag= list= pwd=" + dir,
		"Standard.configure create web port= flag= list= pwd=" + dir,
		"Standard.start create web port=resolved-by-walk flag= list= pwd=" + dir,
	}
	if got := strings.TrimSpace(string(log)); got != strings.Join(wantLog, "\n") {
		t.Errorf("operations run:\n%s\nwant:\n%s", got, strings.Join(wantLog, "\n"))
	}
	fb := o.Feedback
	if !fb.Status.Active || fb.BackendCode != state.BackendOK {
		t.Errorf("feedback %+v", fb)
	}
	wantAttrs := map[string]graph.Value{"private_address": "10.0.0.7", "motd": "line one\nline=two", "url": "http://x/?a=b"}
	if !graph.Equal(map[string]graph.Value(fb.Attributes), map[string]graph.Value(wantAttrs)) {
		t.Errorf("attributes %v, want %v", fb.Attributes, wantAttrs)
	}
	if !strings.Contains(fb.Output, "[Standard.start]\n") || !strings.Contains(fb.Output, "\nstdout of Standard.start") || !strings.Contains(fb.Output, "\nstderr of Standard.start") {
		t.Errorf("output tail:\n%s", fb.Output)
	}
	if txt := out.Text(); !strings.Contains(txt, "Standard.create: stdout of Standard.create") {
		t.Errorf("streamed output:\n%s", txt)
	}

	// Update runs the configure operations only, keeping prior attributes.
	_ = os.Remove(filepath.Join(stateDir, "log"))
	prior := drivertest.Recorded(r, o)
	prior.Feedback.Attributes["kept"] = "yes"
	o, err = d.Apply(context.Background(), driver.Request{Action: driver.ActionUpdate, Address: "web", Resource: r, Prior: prior, WorkDir: dir})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	log, _ = os.ReadFile(filepath.Join(stateDir, "log"))
	if n := strings.Count(string(log), "\n"); n != 2 || !strings.HasPrefix(string(log), "Configure.pre_configure_source update") {
		t.Errorf("update ran:\n%s", log)
	}
	if o.Feedback.Attributes["kept"] != "yes" || o.Feedback.Attributes["private_address"] != "10.0.0.7" {
		t.Errorf("update attributes %v", o.Feedback.Attributes)
	}

	// Delete of a resource no longer configured: stop, then delete, from
	// the recorded driver.
	_ = os.Remove(filepath.Join(stateDir, "log"))
	o, err = d.Apply(context.Background(), driver.Request{Action: driver.ActionDelete, Address: "web", Prior: prior, WorkDir: dir,
		Inputs: map[string]map[string]graph.Value{"Standard.create": {}}})
	if err != nil || !o.Gone || o.Feedback.Attributes != nil {
		t.Fatalf("delete: %v gone=%v attrs=%v", err, o.Gone, o.Feedback.Attributes)
	}
	log, _ = os.ReadFile(filepath.Join(stateDir, "log"))
	if !strings.HasPrefix(string(log), "Standard.stop delete") || !strings.Contains(string(log), "\nStandard.delete delete") {
		t.Errorf("delete ran:\n%s", log)
	}

	// Read and health run nothing and keep the record.
	o, err = d.Apply(context.Background(), driver.Request{Action: driver.ActionHealth, Address: "web", Resource: r, Prior: prior, WorkDir: dir})
	if err != nil || o.Feedback.Attributes["kept"] != "yes" {
		t.Errorf("health: %v %v", err, o.Feedback.Attributes)
	}
}

func TestExecFaults(t *testing.T) {
	cases := []struct {
		name    string
		script  string // file name under scripts/; its body follows
		body    string
		op      graph.Operation
		runs    int    // Apply calls; all but the last must fail
		want    string // error substring of the last run; "" = success
		timeout time.Duration
		check   func(t *testing.T, o driver.Outcome, dir string)
	}{
		{name: "fails twice then succeeds", script: "flaky.sh", runs: 3,
			body: `n=$(cat "$XOSPLAN_STATE_DIR/n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$XOSPLAN_STATE_DIR/n"
[ $n -ge 3 ] || { echo "attempt $n failed" >&2; exit 1; }`},
		{name: "always fails", script: "fail.sh", runs: 1, want: "exit status 7: line 5\nline 6\nline 7\nline 8\nboom",
			body: `for i in 1 2 3 4 5 6 7 8; do echo "line $i" >&2; done; echo boom >&2; exit 7`,
			check: func(t *testing.T, o driver.Outcome, dir string) {
				if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
					t.Error("Standard.start ran after Standard.create failed")
				}
			}},
		{name: "hangs", script: "hang.sh", runs: 1, want: "timed out", timeout: 300 * time.Millisecond,
			body: `sleep 30 & echo $! > "$XOSPLAN_STATE_DIR/child"; wait`},
		{name: "operation timeout wins", script: "hang.sh", runs: 1, want: "timed out after 200ms",
			op:   graph.Operation{Timeout: 200 * time.Millisecond},
			body: `sleep 30 & echo $! > "$XOSPLAN_STATE_DIR/child"; wait`},
		{name: "huge output", script: "loud.sh", runs: 1,
			body: `yes 'all work and no play' | head -c 30000000; yes 'err' | head -c 1000000 >&2`,
			check: func(t *testing.T, o driver.Outcome, dir string) {
				if n := len(o.Feedback.Output); n > 40<<10 || !strings.Contains(o.Feedback.Output, "…") {
					t.Errorf("output tail is %d bytes", n)
				}
			}},
		{name: "garbage output", script: "garbage.sh", runs: 1,
			body: `head -c 100000 /dev/urandom; printf 'ok=\001\n' >> "$XOSPLAN_OUTPUTS"`},
		{name: "bad outputs file", script: "badout.sh", runs: 1, want: "expected name=value",
			body: `echo "no equals sign" >> "$XOSPLAN_OUTPUTS"`},
		{name: "unterminated heredoc", script: "heredoc.sh", runs: 1, want: `no closing "EOF"`,
			body: `printf 'a<<EOF\nx\n' >> "$XOSPLAN_OUTPUTS"`},
		{name: "python", script: "op.py", runs: 1,
			body: "import os\nopen(os.environ['XOSPLAN_OUTPUTS'], 'a').write('lang=python\\n')\n",
			check: func(t *testing.T, o driver.Outcome, dir string) {
				if o.Feedback.Attributes["lang"] != "python" {
					t.Errorf("attributes %v", o.Feedback.Attributes)
				}
			}},
		{name: "shebang", script: "op", runs: 1, body: "#!/bin/sh\necho 'lang=sh' >> \"$XOSPLAN_OUTPUTS\"\n",
			check: func(t *testing.T, o driver.Outcome, dir string) {
				if o.Feedback.Attributes["lang"] != "sh" {
					t.Errorf("attributes %v", o.Feedback.Attributes)
				}
			}},
		{name: "no way to run", script: "playbook.yml", runs: 1, body: "- hosts: all\n", want: "no #! line"},
		{name: "missing implementation", script: "", runs: 1, op: graph.Operation{Implementation: "scripts/nope.sh"}, want: "implementation scripts/nope.sh: file does not exist"},
		{name: "unresolved input", script: "in.sh", runs: 1, body: "true", want: "input ip is not resolved",
			op: graph.Operation{Inputs: map[string]graph.Value{"ip": graph.Unknown{Func: "attribute", Args: []graph.Value{"host", "ip"}}}}},
		{name: "bad input name", script: "in.sh", runs: 1, body: "true", want: "cannot be an environment variable",
			op: graph.Operation{Inputs: map[string]graph.Value{"a=b": "x"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			stateDir := t.TempDir()
			op := tc.op
			if tc.script != "" {
				testutil.WriteScript(t, dir, "scripts/"+tc.script, tc.body)
				op.Implementation = "scripts/" + tc.script
			}
			testutil.WriteScript(t, dir, "scripts/start.sh", `touch started`)
			r := execResource("n", map[string]graph.Operation{"Standard.create": op, "Standard.start": {Implementation: "scripts/start.sh"}})
			opts := drivertest.Options("")
			opts.StateDir = stateDir
			d := New(opts)
			var o driver.Outcome
			var err error
			start := time.Now()
			for i := range tc.runs {
				o, err = d.Apply(context.Background(), driver.Request{Action: driver.ActionCreate, Address: "n", Resource: r, WorkDir: dir, Timeout: tc.timeout})
				if i < tc.runs-1 {
					if err == nil || !strings.Contains(err.Error(), "failed") || o.Feedback.BackendCode != state.BackendError {
						t.Fatalf("run %d: error %v, backend %d: want a clean failure", i+1, err, o.Feedback.BackendCode)
					}
				}
			}
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error: %v", err)
				}
				if _, err := os.Stat(filepath.Join(dir, "started")); err != nil {
					t.Error("Standard.start did not run")
				}
			} else {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want one containing %q", err, tc.want)
				}
				if o.Feedback.BackendCode != state.BackendError || !o.Feedback.Status.Failed {
					t.Errorf("failure feedback %+v", o.Feedback)
				}
			}
			if strings.Contains(tc.want, "timed out") {
				if !errors.Is(err, process.ErrTimeout) {
					t.Errorf("error does not wrap process.ErrTimeout: %v", err)
				}
				if el := time.Since(start); el > 5*time.Second {
					t.Errorf("took %s", el)
				}
				drivertest.AssertGone(t, filepath.Join(stateDir, "child"))
			}
			if tc.check != nil {
				tc.check(t, o, dir)
			}
		})
	}
}

func TestExecDeleteWithUnresolvedInput(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteScript(t, dir, "del.sh", `echo "name=${name-unset} ip=${ip-unset}" > out`)
	r := execResource("n", map[string]graph.Operation{"Standard.delete": {Implementation: "del.sh", Inputs: map[string]graph.Value{
		"name": "db", "ip": graph.Unknown{Func: "attribute", Args: []graph.Value{"gone", "ip"}},
	}}})
	var out drivertest.Lines
	o, err := New(drivertest.Options("")).Apply(context.Background(), driver.Request{Action: driver.ActionDelete, Address: "n", Prior: drivertest.Recorded(r, driver.Outcome{}), WorkDir: dir, Output: out.Add})
	if err != nil || !o.Gone {
		t.Fatalf("delete: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out")); string(b) != "name=db ip=unset\n" {
		t.Errorf("script saw %q", b)
	}
	if !strings.Contains(out.Text(), "input ip left unset") {
		t.Errorf("output: %s", out.Text())
	}
}

func TestExecUpdateNeedsConfigure(t *testing.T) {
	r := execResource("n", map[string]graph.Operation{"Standard.create": {Implementation: "x.sh"}})
	_, err := New(drivertest.Options("")).Apply(context.Background(), driver.Request{Action: driver.ActionUpdate, Address: "n", Resource: r})
	if err == nil || !strings.Contains(err.Error(), "must be replaced") {
		t.Errorf("error %v", err)
	}
}

// TestWebstackScripts applies the TOSCA web stack's real scripts in
// dependency order with the inputs its template resolves to, then deletes
// it in reverse order.
func TestWebstackScripts(t *testing.T) {
	dir := filepath.Join(testutil.ModuleRoot(t), "examples", "webstack")
	work := t.TempDir()
	opts := drivertest.Options("")
	opts.Env = []string{"XOSPLAN_WORKDIR=" + work}
	d := New(opts)
	op := func(impl string, in map[string]graph.Value) graph.Operation {
		return graph.Operation{Implementation: impl, Inputs: in}
	}
	nodes := []*graph.Resource{
		execResource("dbms", map[string]graph.Operation{
			"Standard.create":    op("scripts/dbms/create.sh", map[string]graph.Value{"port": int64(5432)}),
			"Standard.configure": op("scripts/dbms/configure.sh", map[string]graph.Value{"root_password": "change-me"}),
			"Standard.start":     op("scripts/dbms/start.sh", nil),
			"Standard.stop":      op("scripts/dbms/stop.sh", nil),
			"Standard.delete":    op("scripts/dbms/delete.sh", nil),
		}),
		execResource("db", map[string]graph.Operation{
			"Standard.create": op("scripts/db/create.sh", map[string]graph.Value{"db_name": "shop", "db_user": "shop", "db_password": "change-me", "dbms_port": int64(5432)}),
			"Standard.delete": op("scripts/db/delete.sh", map[string]graph.Value{"db_name": "shop"}),
		}),
		execResource("web", map[string]graph.Operation{
			"Standard.create":    op("scripts/web/create.sh", nil),
			"Standard.configure": op("scripts/web/configure.sh", map[string]graph.Value{"port": int64(8080), "address": "127.0.0.1"}),
			"Standard.start":     op("scripts/web/start.sh", nil),
			"Standard.stop":      op("scripts/web/stop.sh", nil),
			"Standard.delete":    op("scripts/web/delete.sh", nil),
		}),
		execResource("app", map[string]graph.Operation{
			"Standard.create":    op("scripts/app/create.sh", map[string]graph.Value{"context_root": "shop", "greeting": "Welcome to the shop"}),
			"Standard.configure": op("scripts/app/configure.sh", map[string]graph.Value{"context_root": "shop", "db_host": "127.0.0.1", "db_port": int64(5432), "db_name": "shop", "db_user": "shop"}),
			"Standard.delete":    op("scripts/app/delete.sh", map[string]graph.Value{"context_root": "shop"}),
		}),
	}
	ctx := context.Background()
	priors := map[string]*state.Resource{}
	for range 2 { // the second apply shows the scripts are idempotent
		for _, n := range nodes {
			o, err := d.Apply(ctx, driver.Request{Action: driver.ActionCreate, Address: n.Address, Resource: n, WorkDir: dir})
			if err != nil {
				t.Fatalf("create %s: %v\n%s", n.Address, err, o.Feedback.Output)
			}
			priors[n.Address] = drivertest.Recorded(n, o)
		}
	}
	for _, f := range []string{"dbms/running", "dbms/data/shop/owner", "web/running", "web/server.conf", "web/docroot/shop/index.html", "web/docroot/shop/database.conf"} {
		if _, err := os.Stat(filepath.Join(work, f)); err != nil {
			t.Errorf("after apply: %v", err)
		}
	}
	conf, _ := os.ReadFile(filepath.Join(work, "web/docroot/shop/database.conf"))
	if !strings.Contains(string(conf), "db://shop@127.0.0.1:5432/shop") {
		t.Errorf("database.conf: %s", conf)
	}
	o, err := d.Apply(ctx, driver.Request{Action: driver.ActionUpdate, Address: "app", Resource: nodes[3], Prior: priors["app"], WorkDir: dir})
	if err != nil {
		t.Fatalf("update app: %v\n%s", err, o.Feedback.Output)
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		n := nodes[i]
		o, err := d.Apply(ctx, driver.Request{Action: driver.ActionDelete, Address: n.Address, Prior: priors[n.Address], WorkDir: dir})
		if err != nil || !o.Gone {
			t.Fatalf("delete %s: %v\n%s", n.Address, err, o.Feedback.Output)
		}
	}
	left, _ := filepath.Glob(filepath.Join(work, "*", "*"))
	if len(left) != 0 {
		t.Errorf("left after delete: %v", left)
	}
}

func TestParseOutputs(t *testing.T) {
	cases := []struct {
		in   string
		want map[string]string
		err  string
	}{
		{"", nil, ""},
		{"a=1\n\nb==2\r\nc=\n", map[string]string{"a": "1", "b": "=2", "c": ""}, ""},
		{"a=1\na=2\n", map[string]string{"a": "2"}, ""},
		{"m<<END\nx=1\n\ny<<z\nEND\nn=2", map[string]string{"m": "x=1\n\ny<<z", "n": "2"}, ""},
		{"k=a<<b\n", map[string]string{"k": "a<<b"}, ""},
		{"m<<\n", map[string]string{}, "no delimiter"},
		{"a=1\n=2\n", map[string]string{"a": "1"}, "expected name=value"},
		{"just text", map[string]string{}, "expected name=value"},
	}
	for _, tc := range cases {
		got, err := parseOutputs([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
		} else if err != nil {
			t.Errorf("%q: %v", tc.in, err)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%q: %s = %q, want %q", tc.in, k, got[k], v)
			}
		}
	}
}

// FuzzOutputs: the outputs file parser never panics and never returns a
// name with "=" before the value's first "=".
func FuzzOutputs(f *testing.F) {
	for _, s := range []string{"a=1\n", "m<<E\nx\nE\n", "m<<E\n", "=\n", "a<<b=c\nb=c\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _ := parseOutputs(data)
		for k := range out {
			if k == "" {
				t.Fatalf("empty output name from %q", data)
			}
		}
	})
}

// TestMissingImplementationNeedsAChange: an implementation that does not
// exist fails with ErrNeedsChange before anything runs (it used to fail
// as the shell's exit status, which a synchronizer would retry forever).
func TestMissingImplementationNeedsAChange(t *testing.T) {
	dir := t.TempDir()
	e := New(driver.Options{Root: []string{dir}})
	r := &graph.Resource{Address: "late", Type: "tosca.nodes.Root", Management: graph.Managed,
		Driver: graph.Driver{Name: graph.DriverExec, Operations: map[string]graph.Operation{"Standard.create": {Implementation: "scripts/late.sh"}}}}
	_, err := e.Apply(context.Background(), driver.Request{Action: driver.ActionCreate, Address: "late", Resource: r, WorkDir: dir})
	if !errors.Is(err, driver.ErrNeedsChange) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v: want ErrNeedsChange and fs.ErrNotExist", err)
	}
}

// TestExecInputsOfEachOperation checks that the driver asks
// Request.InputsOf for each operation's inputs just before it runs, with
// the attributes the operations before it reported (under their mapped
// names), and runs it with them; an error fails the operation before it
// starts.
func TestExecInputsOfEachOperation(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteScript(t, dir, "create.sh", `echo "ip=10.0.0.7" >> "$XOSPLAN_OUTPUTS"`)
	testutil.WriteScript(t, dir, "configure.sh", `echo "seen=$addr" >> "$XOSPLAN_OUTPUTS"`)
	r := execResource("n", map[string]graph.Operation{
		"Standard.create":    {Implementation: "create.sh", Outputs: map[string]string{"ip": "private_address"}},
		"Standard.configure": {Implementation: "configure.sh", Inputs: map[string]graph.Value{"addr": graph.Unknown{Func: "attribute", Args: []graph.Value{"n", "private_address"}}}},
	})
	var asked []string
	req := driver.Request{Action: driver.ActionCreate, Address: "n", Resource: r, WorkDir: dir,
		Inputs: map[string]map[string]graph.Value{"Standard.configure": {"addr": "resolved before create"}},
		InputsOf: func(_ context.Context, key string, reported map[string]graph.Value) (map[string]graph.Value, error) {
			asked = append(asked, key)
			if key != "Standard.configure" {
				return nil, nil
			}
			return map[string]graph.Value{"addr": reported["private_address"]}, nil
		}}
	o, err := New(drivertest.Options("")).Apply(context.Background(), req)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if got := o.Feedback.Attributes["seen"]; got != "10.0.0.7" {
		t.Errorf("configure saw addr %v, want create's output 10.0.0.7", got)
	}
	if strings.Join(asked, " ") != "Standard.create Standard.configure" {
		t.Errorf("InputsOf asked for %v", asked)
	}

	req.InputsOf = func(context.Context, string, map[string]graph.Value) (map[string]graph.Value, error) {
		return nil, errors.New("cannot resolve")
	}
	if _, err := New(drivertest.Options("")).Apply(context.Background(), req); err == nil || !strings.Contains(err.Error(), "cannot resolve") {
		t.Errorf("create with inputs that cannot be resolved: %v", err)
	}
}
