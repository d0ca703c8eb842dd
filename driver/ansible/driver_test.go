package ansible

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/process"
	"github.com/xosplan/xosplan/pkg/redact"
	"github.com/xosplan/xosplan/pkg/state"
)

// needAnsible skips a test that runs a real playbook when Ansible is not
// installed (make test-deps installs it).
func needAnsible(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath(Program); err != nil {
		t.Skip("ansible-playbook is not installed (make test-deps installs ansible-core)")
	}
}

// testCtx is a context with the test's own deadline.
func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// writeFiles writes name → content under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const writePlaybook = `- hosts: all
  gather_facts: false
  tasks:
    - name: write the file
      copy:
        dest: "{{ dir }}/{{ name }}.txt"
        content: "{{ content }}"
    - name: report
      set_stats:
        data:
          path: "{{ dir }}/{{ name }}.txt"
          count: 3
`

// lines collects Output lines.
type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) add(s string) { l.mu.Lock(); l.l = append(l.l, s); l.mu.Unlock() }
func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.l, "\n")
}

func TestApplyRunsPlaybookLocally(t *testing.T) {
	needAnsible(t)
	dir := t.TempDir()
	out := t.TempDir()
	writeFiles(t, dir, map[string]string{"playbooks/create.yml": writePlaybook})
	res := &graph.Resource{Address: "app", Driver: graph.Driver{Name: graph.DriverAnsible, Operations: map[string]graph.Operation{
		"Standard.create": {Implementation: "playbooks/create.yml",
			Inputs:  map[string]graph.Value{"dir": out, "name": "hello", "content": "s3cret-value"},
			Outputs: map[string]string{"path": "file_path"}},
	}}}
	var got lines
	red := redact.New("s3cret-value")
	o, err := New(driver.Options{Timeout: 2 * time.Minute}).Apply(testCtx(t, 3*time.Minute), driver.Request{
		Action: driver.ActionCreate, Address: "app", Resource: res, WorkDir: dir, Output: got.add, Redactor: red})
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, got.String())
	}
	data, err := os.ReadFile(filepath.Join(out, "hello.txt"))
	if err != nil || string(data) != "s3cret-value" {
		t.Fatalf("the playbook did not write the file: %q, %v", data, err)
	}
	if p := o.Feedback.Attributes["file_path"]; p != filepath.Join(out, "hello.txt") {
		t.Errorf("file_path = %v, want the path the playbook reported; attributes %v", p, o.Feedback.Attributes)
	}
	if c := o.Feedback.Attributes["count"]; c != int64(3) {
		t.Errorf("count = %#v, want int64 3", c)
	}
	if !o.Feedback.Status.Active || o.Feedback.BackendCode != state.BackendOK {
		t.Errorf("status %+v, backend %d", o.Feedback.Status, o.Feedback.BackendCode)
	}
	if !strings.Contains(got.String(), "Standard.create: TASK [write the file]") {
		t.Errorf("no task line on Output:\n%s", got.String())
	}
	if strings.Contains(got.String()+o.Feedback.Output, "s3cret-value") {
		t.Errorf("a secret was shown:\n%s", got.String())
	}
	left, _ := filepath.Glob(filepath.Join(os.TempDir(), "xosplan-ansible-*", "priv", "vars.json"))
	for _, l := range left {
		if fi, err := os.Stat(l); err == nil && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v", l, fi.Mode())
		}
	}
}

func TestApplyFailureKeepsTailAndStops(t *testing.T) {
	needAnsible(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"fail.yaml":   "- hosts: all\n  gather_facts: false\n  tasks:\n    - fail:\n        msg: broken on purpose\n",
		"create.yaml": writePlaybook,
	})
	res := &graph.Resource{Address: "app", Driver: graph.Driver{Name: graph.DriverAnsible, Operations: map[string]graph.Operation{
		"Standard.create":    {Implementation: "fail.yaml"},
		"Standard.configure": {Implementation: "create.yaml"},
	}}}
	o, err := New(driver.Options{}).Apply(testCtx(t, 3*time.Minute), driver.Request{
		Action: driver.ActionCreate, Address: "app", Resource: res, WorkDir: dir})
	if err == nil || !strings.Contains(err.Error(), "Standard.create (fail.yaml)") {
		t.Fatalf("err = %v, want the create's failure", err)
	}
	if !strings.Contains(o.Feedback.Output, "broken on purpose") {
		t.Errorf("the output tail lacks the failure:\n%s", o.Feedback.Output)
	}
	if o.Feedback.BackendCode != state.BackendError || !o.Feedback.Status.Failed {
		t.Errorf("feedback %+v", o.Feedback)
	}
}

func TestApplyTimeoutEndsPlaybook(t *testing.T) {
	needAnsible(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"slow.yml": "- hosts: all\n  gather_facts: false\n  tasks:\n    - command: sleep 60\n",
	})
	res := &graph.Resource{Address: "app", Driver: graph.Driver{Name: graph.DriverAnsible, Operations: map[string]graph.Operation{
		"Standard.create": {Implementation: "slow.yml", Timeout: 3 * time.Second},
	}}}
	_, err := New(driver.Options{KillGrace: time.Second}).Apply(testCtx(t, time.Minute), driver.Request{
		Action: driver.ActionCreate, Address: "app", Resource: res, WorkDir: dir})
	if !errors.Is(err, process.ErrTimeout) {
		t.Fatalf("err = %v, want a timeout", err)
	}
}

func TestApplyReportsConvergingAndHealth(t *testing.T) {
	needAnsible(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"create.yml": "- hosts: all\n  gather_facts: false\n  tasks:\n    - set_stats:\n        data:\n          xosplan_status: converging\n",
		"check.yml":  "- hosts: all\n  gather_facts: false\n  tasks:\n    - set_stats:\n        data:\n          status: \"{{ 'active' if ready else 'converging' }}\"\n          message: checked\n",
	})
	drv := graph.Driver{Name: graph.DriverAnsible, Operations: map[string]graph.Operation{
		"Standard.create":   {Implementation: "create.yml"},
		graph.OpHealthCheck: {Implementation: "check.yml", Inputs: map[string]graph.Value{"ready": true}},
	}}
	res := &graph.Resource{Address: "app", Driver: drv}
	d := New(driver.Options{})
	o, err := d.Apply(testCtx(t, 3*time.Minute), driver.Request{Action: driver.ActionCreate, Address: "app", Resource: res, WorkDir: dir})
	if err != nil || !o.Converging || !o.Feedback.Status.Converging {
		t.Fatalf("create: %v, outcome %+v; want converging", err, o)
	}
	if _, ok := o.Feedback.Attributes[StatusOutput]; ok {
		t.Errorf("%s became an attribute", StatusOutput)
	}
	prior := &state.Resource{Address: "app", Driver: drv, Feedback: o.Feedback}
	h, err := d.Apply(testCtx(t, 3*time.Minute), driver.Request{Action: driver.ActionHealth, Address: "app", Resource: res, Prior: prior, WorkDir: dir})
	if err != nil || !h.Feedback.Status.Active || h.Feedback.Status.Message != "checked" {
		t.Fatalf("health: %v, status %+v", err, h.Feedback.Status)
	}
}

func TestApplyMissingPlaybookNeedsChange(t *testing.T) {
	dir := t.TempDir()
	res := &graph.Resource{Address: "app", Driver: graph.Driver{Name: graph.DriverAnsible, Operations: map[string]graph.Operation{
		"Standard.create": {Implementation: "nope.yml"},
	}}}
	_, err := New(driver.Options{}).Apply(testCtx(t, time.Minute), driver.Request{Action: driver.ActionCreate, Address: "app", Resource: res, WorkDir: dir})
	if !errors.Is(err, driver.ErrNeedsChange) {
		t.Fatalf("err = %v, want ErrNeedsChange", err)
	}
}

func TestApplyWithoutAnsibleIsAClearError(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"create.yml": writePlaybook})
	t.Setenv("PATH", t.TempDir())
	res := &graph.Resource{Address: "app", Driver: graph.Driver{Name: graph.DriverAnsible, Operations: map[string]graph.Operation{
		"Standard.create": {Implementation: "create.yml"},
	}}}
	_, err := New(driver.Options{}).Apply(testCtx(t, time.Minute), driver.Request{Action: driver.ActionCreate, Address: "app", Resource: res, WorkDir: dir})
	if !errors.Is(err, ErrNoAnsible) || !errors.Is(err, driver.ErrNeedsChange) {
		t.Fatalf("err = %v, want ErrNoAnsible", err)
	}
	if Available() == nil {
		t.Error("Available() = nil without ansible-playbook on PATH")
	}
}

// TestApplyFindsDependenciesAndArtifacts: a dependency and the node's
// artifacts are beside the playbook by their names (xOpera's layout), a
// task file by its path relative to the playbook, and an artifact by the
// path get_artifact gives (relative to the template's folder).
func TestApplyFindsDependenciesAndArtifacts(t *testing.T) {
	needAnsible(t)
	dir := t.TempDir()
	out := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"playbooks/create.yml": `- hosts: all
  gather_facts: false
  tasks:
    - include_tasks: tasks/write.yml
`,
		"playbooks/tasks/write.yml": `- copy:
    dest: "{{ out }}/result.txt"
    content: "{{ lookup('file', 'settings.env') }} {{ lookup('file', artifact) }} {{ lookup('file', 'logo.txt') }}"
`,
		"config/settings.env": "dep",
		"files/app.conf":      "artifact",
		"files/logo.txt":      "logo",
	})
	res := &graph.Resource{Address: "app", Spec: map[string]graph.Value{"artifacts": map[string]graph.Value{"logo": "files/logo.txt", "remote": "https://example.com/x"}},
		Driver: graph.Driver{Name: graph.DriverAnsible, Operations: map[string]graph.Operation{
			"Standard.create": {Implementation: "playbooks/create.yml", Dependencies: []string{"config/settings.env"},
				Inputs: map[string]graph.Value{"out": out, "artifact": "files/app.conf"}},
		}}}
	var got lines
	if _, err := New(driver.Options{}).Apply(testCtx(t, 3*time.Minute), driver.Request{
		Action: driver.ActionCreate, Address: "app", Resource: res, WorkDir: dir, Output: got.add}); err != nil {
		t.Fatalf("apply: %v\n%s", err, got.String())
	}
	data, err := os.ReadFile(filepath.Join(out, "result.txt"))
	if err != nil || string(data) != "dep artifact logo" {
		t.Fatalf("result %q, %v", data, err)
	}
}

// TestApplyRefusesPlaybookOutsideRoot: a playbook (or a dependency) that
// resolves outside the configuration root never runs.
func TestApplyRefusesPlaybookOutsideRoot(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "project")
	writeFiles(t, base, map[string]string{
		"project/ok.yml": writePlaybook,
		"outside.yml":    writePlaybook,
	})
	for _, op := range []graph.Operation{
		{Implementation: "../outside.yml"},
		{Implementation: "ok.yml", Dependencies: []string{"../outside.yml"}},
	} {
		res := &graph.Resource{Address: "app", Driver: graph.Driver{Name: graph.DriverAnsible, Operations: map[string]graph.Operation{"Standard.create": op}}}
		_, err := New(driver.Options{Root: []string{root}}).Apply(testCtx(t, time.Minute), driver.Request{
			Action: driver.ActionCreate, Address: "app", Resource: res, WorkDir: root})
		if !errors.Is(err, driver.ErrImplementationPath) || !errors.Is(err, driver.ErrNeedsChange) {
			t.Errorf("%+v: err = %v, want ErrImplementationPath", op, err)
		}
	}
}

// errInterrupted is the cause the cancellation test gives, as the walk
// gives its own.
var errInterrupted = errors.New("interrupted")

// TestApplyCancelEndsPlaybook: cancelling the call ends the playbook's
// process group and returns promptly with the cause.
func TestApplyCancelEndsPlaybook(t *testing.T) {
	needAnsible(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"slow.yml": "- hosts: all\n  gather_facts: false\n  tasks:\n    - command: sleep 60\n",
	})
	res := &graph.Resource{Address: "app", Driver: graph.Driver{Name: graph.DriverAnsible, Operations: map[string]graph.Operation{
		"Standard.create": {Implementation: "slow.yml"},
	}}}
	ctx, cancel := context.WithCancelCause(testCtx(t, time.Minute))
	started := make(chan struct{})
	var once sync.Once
	go func() {
		select {
		case <-started:
			time.Sleep(2 * time.Second)
		case <-ctx.Done():
		}
		cancel(errInterrupted)
	}()
	_, err := New(driver.Options{KillGrace: time.Second}).Apply(ctx, driver.Request{
		Action: driver.ActionCreate, Address: "app", Resource: res, WorkDir: dir,
		Started: func(state.Process) { once.Do(func() { close(started) }) }})
	// Waiting for the playbook would end at the test's deadline with
	// another error.
	if !errors.Is(err, errInterrupted) {
		t.Fatalf("err = %v, want the interrupt", err)
	}
}

// TestCheckPredictsWithoutChanging: check mode reports what would change
// and changes nothing; a playbook with a task forced to run for real is
// not run at all.
func TestCheckPredictsWithoutChanging(t *testing.T) {
	needAnsible(t)
	dir := t.TempDir()
	out := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"create.yml": writePlaybook,
		"forced.yml": "- hosts: all\n  gather_facts: false\n  tasks:\n    - include_tasks: tasks.yml\n",
		"tasks.yml":  "- file:\n    path: \"{{ dir }}/forced\"\n    state: touch\n  check_mode: false\n",
	})
	inputs := map[string]graph.Value{"dir": out, "name": "x", "content": "c"}
	res := &graph.Resource{Address: "app", Driver: graph.Driver{Name: graph.DriverAnsible, Operations: map[string]graph.Operation{
		"Standard.create":    {Implementation: "create.yml", Inputs: inputs},
		"Standard.configure": {Implementation: "forced.yml", Inputs: inputs},
	}}}
	d := New(driver.Options{})
	req := driver.Request{Action: driver.ActionCreate, Address: "app", Resource: res, WorkDir: dir}
	p, err := d.Predict(testCtx(t, 3*time.Minute), req, "Standard.create")
	if err != nil || p.Changed != 1 || !strings.Contains(p.Output, "+c") {
		t.Fatalf("prediction %+v, %v; want one change with its diff", p, err)
	}
	if _, err := os.Stat(filepath.Join(out, "x.txt")); err == nil {
		t.Error("check mode wrote the file")
	}
	p, err = d.Predict(testCtx(t, 3*time.Minute), req, "Standard.configure")
	if err != nil || !strings.Contains(p.Skipped, "check_mode: false") {
		t.Fatalf("prediction %+v, %v; want it skipped", p, err)
	}
	if _, err := os.Stat(filepath.Join(out, "forced")); err == nil {
		t.Error("the forced task ran")
	}
}

// TestApplyInputsOfEachOperation: a playbook's inputs are resolved again
// just before it runs (Request.ForOperation), so that configure reads
// what create reported with set_stats in the same request.
func TestApplyInputsOfEachOperation(t *testing.T) {
	needAnsible(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"create.yml":    "- hosts: all\n  gather_facts: false\n  tasks:\n    - set_stats:\n        data:\n          ip: 10.0.0.7\n",
		"configure.yml": "- hosts: all\n  gather_facts: false\n  tasks:\n    - set_stats:\n        data:\n          seen: \"{{ addr }}\"\n",
	})
	res := &graph.Resource{Address: "n", Driver: graph.Driver{Name: graph.DriverAnsible, Operations: map[string]graph.Operation{
		"Standard.create":    {Implementation: "create.yml", Outputs: map[string]string{"ip": "private_address"}},
		"Standard.configure": {Implementation: "configure.yml", Inputs: map[string]graph.Value{"addr": graph.Unknown{Func: "attribute", Args: []graph.Value{"n", "private_address"}}}},
	}}}
	req := driver.Request{Action: driver.ActionCreate, Address: "n", Resource: res, WorkDir: dir,
		Inputs: map[string]map[string]graph.Value{"Standard.configure": {"addr": "resolved before create"}},
		InputsOf: func(_ context.Context, key string, reported map[string]graph.Value) (map[string]graph.Value, error) {
			if key != "Standard.configure" {
				return nil, nil
			}
			return map[string]graph.Value{"addr": reported["private_address"]}, nil
		}}
	o, err := New(driver.Options{}).Apply(testCtx(t, 3*time.Minute), req)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if got := o.Feedback.Attributes["seen"]; got != "10.0.0.7" {
		t.Errorf("configure saw addr %v, want create's output 10.0.0.7", got)
	}
	req.InputsOf = func(context.Context, string, map[string]graph.Value) (map[string]graph.Value, error) {
		return nil, errors.New("cannot resolve")
	}
	if _, err := New(driver.Options{}).Apply(testCtx(t, time.Minute), req); err == nil || !strings.Contains(err.Error(), "cannot resolve") {
		t.Errorf("create with inputs that cannot be resolved: %v", err)
	}
}
