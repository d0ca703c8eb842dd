//go:build unix

package scripted

import (
	"context"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/driver/drivertest"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
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
  printf '    $pushAll:\n      commands.%s:\n        - {"state": "done"}\n      commands.stranger:\n        - {"state": "?"}\n' "$(cat "$JOBS/job")"
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
		Output: func(l string) { lines = append(lines, l) }})
	if err != nil {
		t.Fatal(err)
	}
	invs := driver.Invocations(check.Feedback.Attributes)
	if len(invs) != 1 || invs[0].ID != out.CommandID || invs[0].Status != driver.InvocationCompleted || invs[0].Result["state"] != "done" {
		t.Fatalf("after the check: %+v", invs)
	}
	if !strings.Contains(strings.Join(lines, "\n"), `command control.backup (`+out.CommandID+`) completed: {"state":"done"}`) {
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
