//go:build unix

package scripted

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/driver/drivertest"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/redact"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestAHealthCheckCompletesAPendingCommand: a command script that reports
// only an intermediate result leaves its invocation pending in
// driver.AttrCommands; the health check that reports the final result
// under the command id completes it (and says so on Output), results for
// an id no invocation has are ignored, and a later check keeps the record.
func TestAHealthCheckCompletesAPendingCommand(t *testing.T) {
	root := t.TempDir()
	jobs := t.TempDir()
	testutil.WriteScript(t, root, "c/backup.sh", `cid=$(awk '/commands:/ { getline; sub(/^ */, ""); sub(/:.*/, ""); print; exit }')
echo "$cid" > "$JOBS/job"
printf 'instances:\n  n-1:\n    $pushAll:\n      commands.%s:\n        - {"$intermediate": true, "state": "started"}\n' "$cid"
`)
	testutil.WriteScript(t, root, "c/check.sh", `cat >/dev/null
printf 'instances:\n  n-1:\n    $set:\n      status.flags.active: true\n'
if [ -f "$JOBS/job" ]; then
  printf '    $pushAll:\n      commands.%s:\n        - {"state": "done", "key": "hunter2"}\n      commands.stranger:\n        - {"state": "?"}\n' "$(cat "$JOBS/job")"
  rm "$JOBS/job"
fi
`)
	opts := drivertest.Options(root)
	opts.Env = []string{"JOBS=" + jobs}
	d := New(opts)
	r := scriptedResource("A.c", map[string]string{graph.OpLaunch: "/c/check.sh", graph.OpHealthCheck: "/c/check.sh",
		graph.OpCommandPrefix + "control.backup": "/c/backup.sh"}, nil)
	prior := drivertest.Recorded(r, driver.Outcome{Feedback: state.Feedback{InstanceID: "n-1", Status: state.Status{Active: true}}})
	ctx := context.Background()

	out, err := d.Invoke(ctx, driver.Request{Address: r.Address, Resource: r, Prior: prior}, "control.backup", nil)
	if err != nil {
		t.Fatal(err)
	}
	inv, ok := driver.FindInvocation(out.Feedback.Attributes, out.CommandID)
	if out.CommandID == "" || !ok || inv.Status != driver.InvocationPending || inv.Command != "control.backup" || len(inv.Intermediate) != 1 {
		t.Fatalf("after the command: id %q, %+v", out.CommandID, inv)
	}

	prior.Feedback = out.Feedback
	var lines []string
	check, err := d.Apply(ctx, driver.Request{Action: driver.ActionHealth, Address: r.Address, Resource: r, Prior: prior,
		Output: func(l string) { lines = append(lines, l) }, Redactor: redact.New("hunter2")})
	if err != nil {
		t.Fatal(err)
	}
	invs := driver.Invocations(check.Feedback.Attributes)
	if len(invs) != 1 || invs[0].ID != out.CommandID || invs[0].Status != driver.InvocationCompleted || invs[0].Result["state"] != "done" ||
		strings.Contains(fmt.Sprint(invs[0].Result), "hunter2") {
		t.Fatalf("after the check: %+v", invs)
	}
	if shown := strings.Join(lines, "\n"); !strings.Contains(shown, `command control.backup (`+out.CommandID+`) completed: {"key":"`) || strings.Contains(shown, "hunter2") {
		t.Errorf("the check's output does not say the command completed: %q", lines)
	}

	prior.Feedback = check.Feedback
	again, err := d.Apply(ctx, driver.Request{Action: driver.ActionHealth, Address: r.Address, Resource: r, Prior: prior})
	if err != nil {
		t.Fatal(err)
	}
	if inv, ok := driver.FindInvocation(again.Feedback.Attributes, out.CommandID); !ok || inv.Status != driver.InvocationCompleted {
		t.Errorf("the next check lost the record: %+v", again.Feedback.Attributes)
	}
}

// TestANameIsSetOnceAndFailuresAreLogged: a name a health check reports
// for an instance that has one is ignored (said on Output) and the
// recorded one stays; a script that fails appends an ERROR entry to the
// instance's activity log, shown on Output, with the secrets of the run
// redacted.
func TestANameIsSetOnceAndFailuresAreLogged(t *testing.T) {
	root := t.TempDir()
	testutil.WriteScript(t, root, "c/check.sh", `cat >/dev/null
printf 'instances:\n  n-1:\n    name: renamed\n    $set:\n      status.flags.active: true\n'
`)
	testutil.WriteScript(t, root, "c/fail.sh", `cat >/dev/null
echo "token hunter2 refused" >&2
exit 3
`)
	d := New(drivertest.Options(root))
	r := scriptedResource("A.c", map[string]string{graph.OpLaunch: "/c/fail.sh", graph.OpHealthCheck: "/c/check.sh", graph.OpReconfigure: "/c/fail.sh"}, nil)
	prior := drivertest.Recorded(r, driver.Outcome{Feedback: state.Feedback{InstanceID: "n-1", Status: state.Status{Active: true},
		Attributes: map[string]graph.Value{AttrName: "first"},
		Extra:      map[string]graph.Value{ExtraModel: map[string]graph.Value{"name": "first", "activityLog": []graph.Value{map[string]graph.Value{"severity": "INFO", "message": "up"}}}}}})
	var lines []string
	out := func(l string) { lines = append(lines, l) }
	o, err := d.Apply(context.Background(), driver.Request{Action: driver.ActionHealth, Address: r.Address, Resource: r, Prior: prior, Output: out})
	if err != nil {
		t.Fatal(err)
	}
	if o.Feedback.Attributes[AttrName] != "first" || o.Feedback.Extra[ExtraModel].(map[string]graph.Value)["name"] != "first" {
		t.Errorf("the name changed: %v", o.Feedback.Attributes)
	}
	if !strings.Contains(strings.Join(lines, "\n"), `ignoring the name "renamed" reported for an instance named "first"`) {
		t.Errorf("output %q does not say the name was ignored", lines)
	}

	lines = nil
	red := redact.New("hunter2")
	o, err = d.Apply(context.Background(), driver.Request{Action: driver.ActionUpdate, Address: r.Address, Resource: r, Prior: prior, Output: out, Redactor: red})
	if err == nil {
		t.Fatal("a failing reconfiguration script succeeded")
	}
	log, _ := o.Feedback.Extra[ExtraModel].(map[string]graph.Value)["activityLog"].([]graph.Value)
	if len(log) != 2 {
		t.Fatalf("activity log %v, want the old entry and the failure", log)
	}
	entry := log[1].(map[string]graph.Value)
	msg, _ := entry["message"].(string)
	if entry["severity"] != "ERROR" || !strings.HasPrefix(msg, "reconfigure script /c/fail.sh: exit status 3") || strings.Contains(msg, "hunter2") {
		t.Errorf("failure entry %v", entry)
	}
	if shown := strings.Join(lines, "\n"); !strings.Contains(shown, "[ERROR] A.c: reconfigure script /c/fail.sh: exit status 3") || strings.Contains(shown, "hunter2") {
		t.Errorf("output %q", lines)
	}
}

// TestRecordedSignalsWinOverTheModel: signals recorded without the model
// (a discovery's or an observation's, through a refresh) are what the
// next script run starts from: a health check that reports no signal
// keeps them instead of bringing the model's older values back.
func TestRecordedSignalsWinOverTheModel(t *testing.T) {
	root := t.TempDir()
	testutil.WriteScript(t, root, "c/check.sh", `cat >/dev/null
printf 'instances:\n  n-1:\n    $set:\n      status.flags.active: true\n'
`)
	d := New(drivertest.Options(root))
	r := scriptedResource("A.c", map[string]string{graph.OpLaunch: "/c/check.sh", graph.OpHealthCheck: "/c/check.sh"}, nil)
	model := map[string]graph.Value{"interfaces": map[string]graph.Value{"compute": map[string]graph.Value{"signals": map[string]graph.Value{"ip": "10.0.0.1", "port": int64(80)}}}}
	prior := drivertest.Recorded(r, driver.Outcome{Feedback: state.Feedback{InstanceID: "n-1", Status: state.Status{Active: true},
		Signals: map[string]graph.Value{"compute.ip": "10.0.0.9", "compute.port": int64(80), "storage.disk": "sdb"},
		Extra:   map[string]graph.Value{ExtraModel: model}}})
	o, err := d.Apply(context.Background(), driver.Request{Action: driver.ActionHealth, Address: r.Address, Resource: r, Prior: prior})
	if err != nil {
		t.Fatal(err)
	}
	if o.Feedback.Signals["compute.ip"] != "10.0.0.9" || o.Feedback.Signals["compute.port"] != int64(80) || o.Feedback.Signals["storage.disk"] != "sdb" {
		t.Errorf("signals %v, want the recorded ones", o.Feedback.Signals)
	}
}
