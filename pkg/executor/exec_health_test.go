//go:build unix

package executor

import (
	"context"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/driver/drivertest"
	"github.com/xosplan/xosplan/driver/exec"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestExecHealthCheck: the exec driver's health action runs the resource's
// health check (graph.OpHealthCheck) and reads its protocol — exit status
// 0 with an optional status line (active, converging, failed, missing)
// and message, other outputs as attributes; a non-zero exit is failed —
// and Refresher observes a failed or missing object as failed, which
// refresh records as drift and the planner repairs.
func TestExecHealthCheck(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		want    state.Status
		errText string // substring of the driver's error; "" = none
		attrs   map[string]graph.Value
	}{
		{name: "exit 0, nothing written", body: "true", want: state.Status{Active: true}},
		{name: "active with a message and an attribute", body: `echo "status=active" >> "$XOSPLAN_OUTPUTS"
echo "message=3 replicas" >> "$XOSPLAN_OUTPUTS"
echo "lag=12" >> "$XOSPLAN_OUTPUTS"`,
			want: state.Status{Active: true, Message: "3 replicas"}, attrs: map[string]graph.Value{"kept": "yes", "replica_lag": "12"}},
		{name: "converging", body: `echo "status=converging" >> "$XOSPLAN_OUTPUTS"`, want: state.Status{Converging: true}},
		{name: "failed", body: `echo "status=failed" >> "$XOSPLAN_OUTPUTS"; echo "message=disk full" >> "$XOSPLAN_OUTPUTS"`,
			want: state.Status{Failed: true}, errText: "the health check reports the object failed: disk full"},
		{name: "missing", body: `echo "status=missing" >> "$XOSPLAN_OUTPUTS"`,
			want: state.Status{Failed: true}, errText: "the health check reports the object missing"},
		{name: "a non-zero exit", body: `echo "no answer from port $port" >&2; exit 3`,
			want: state.Status{Failed: true}, errText: "no answer from port 5432"},
		{name: "an unknown status", body: `echo "status=sleepy" >> "$XOSPLAN_OUTPUTS"`,
			want: state.Status{Failed: true}, errText: `status "sleepy"`},
		{name: "the action and operation it runs as", body: `[ "$XOSPLAN_ACTION" = health ] && [ "$XOSPLAN_OPERATION" = healthCheck ] || exit 1`,
			want: state.Status{Active: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testutil.WriteScript(t, dir, "scripts/create.sh", "true\n")
			testutil.WriteScript(t, dir, "scripts/check.sh", tc.body+"\n")
			r := execResource("db", map[string]graph.Operation{
				"Standard.create": {Implementation: "scripts/create.sh"},
				graph.OpHealthCheck: {Implementation: "scripts/check.sh", Inputs: map[string]graph.Value{"port": int64(5432)},
					Outputs: map[string]string{"lag": "replica_lag"}},
			})
			rec := &state.Resource{Address: "db", Type: r.Type, Driver: r.Driver, Management: graph.Managed,
				Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true},
					Attributes: map[string]graph.Value{"kept": "yes"}, Extra: map[string]graph.Value{ExtraWorkDir: dir}}}
			d := exec.New(drivertest.Options(""))
			o, err := d.Apply(context.Background(), Request{Action: ActionHealth, Address: "db", Resource: r, Prior: rec, WorkDir: dir})
			if tc.errText == "" && err != nil || tc.errText != "" && (err == nil || !strings.Contains(err.Error(), tc.errText)) {
				t.Fatalf("error %v, want one containing %q", err, tc.errText)
			}
			if o.Feedback.Status.Active != tc.want.Active || o.Feedback.Status.Converging != tc.want.Converging ||
				o.Feedback.Status.Failed != tc.want.Failed || (!tc.want.Failed && o.Feedback.Status.Message != tc.want.Message) {
				t.Errorf("status %+v, want %+v", o.Feedback.Status, tc.want)
			}
			if o.Converging != tc.want.Converging {
				t.Errorf("outcome converging %v", o.Converging)
			}
			if tc.attrs != nil && !graph.Equal(map[string]graph.Value(o.Feedback.Attributes), map[string]graph.Value(tc.attrs)) {
				t.Errorf("attributes %v, want %v", o.Feedback.Attributes, tc.attrs)
			}
			if rec.Feedback.Attributes["replica_lag"] != nil {
				t.Error("the check changed the recorded attributes in place")
			}

			// Refresh observes the same: a failed or missing object is
			// failed, with the reason as its message.
			rf := &Refresher{Drivers: Registry{graph.DriverExec: d}, State: &state.State{Resources: []state.Resource{*rec}}}
			fb, err := rf.Refresh(context.Background(), rec)
			if err != nil {
				t.Fatalf("refresh: %v", err)
			}
			if fb.Status.Failed != tc.want.Failed || fb.Status.Active != tc.want.Active || fb.Status.Converging != tc.want.Converging ||
				tc.errText != "" && !strings.Contains(fb.Status.Message, tc.errText) {
				t.Errorf("refresh observed %+v, want %+v (%s)", fb.Status, tc.want, tc.errText)
			}
		})
	}
}

// TestExecHealthCheckInputsReadTheState: the inputs of a health check
// that read attributes (get_attribute, an Unknown in the record) are
// resolved from the recorded state by Refresher, as the walk resolves an
// operation's.
func TestExecHealthCheckInputsReadTheState(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteScript(t, dir, "scripts/create.sh", "true\n")
	testutil.WriteScript(t, dir, "scripts/check.sh", `[ "$url" = "db.example:5432" ] || { echo "url=$url" >&2; exit 1; }`+"\n")
	r := execResource("app", map[string]graph.Operation{
		"Standard.create":   {Implementation: "scripts/create.sh"},
		graph.OpHealthCheck: {Implementation: "scripts/check.sh", Inputs: map[string]graph.Value{"url": graph.Unknown{Func: "attribute", Args: []graph.Value{"db", "url"}}}},
	})
	rec := state.Resource{Address: "app", Type: r.Type, Driver: r.Driver, Management: graph.Managed,
		Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true}, Extra: map[string]graph.Value{ExtraWorkDir: dir}}}
	db := state.Resource{Address: "db", Type: "tosca.nodes.Root", Driver: graph.Driver{Name: graph.DriverNoop}, Management: graph.Managed,
		Feedback: state.Feedback{BackendCode: state.BackendOK, Attributes: map[string]graph.Value{"url": "db.example:5432"}}}
	rf := &Refresher{Drivers: Registry{graph.DriverExec: exec.New(drivertest.Options(""))}, State: &state.State{Resources: []state.Resource{rec, db}}}
	fb, err := rf.Refresh(context.Background(), &rec)
	if err != nil || !fb.Status.Active {
		t.Fatalf("refresh: %v %+v", err, fb.Status)
	}
}

// execResource is a TOSCA node with the given operations, for the exec
// driver.
func execResource(addr string, ops map[string]graph.Operation) *graph.Resource {
	return &graph.Resource{Address: addr, Type: "tosca.nodes.SoftwareComponent", Driver: graph.Driver{Name: graph.DriverExec, Operations: ops}, Management: graph.Managed}
}
