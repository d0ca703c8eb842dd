package views

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/applyview"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// testStreams returns streams writing to two buffers, without colour and
// with a fixed clock.
func testStreams() (*Streams, *bytes.Buffer, *bytes.Buffer) {
	var out, errs bytes.Buffer
	return &Streams{
		Stdout:  &out,
		Stderr:  &errs,
		Color:   func(io.Writer) bool { return false },
		Sources: func(string) ([]byte, bool) { return nil, false },
		Version: "test",
		Now:     func() time.Time { return time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC) },
	}, &out, &errs
}

func emptyPlan(t *testing.T) *planner.Plan {
	t.Helper()
	p, diags := planner.Diff(context.Background(), graph.New(), &state.State{Version: state.FormatVersion, Lineage: "l"}, planner.Options{})
	if p == nil || diags.HasErrors() {
		t.Fatalf("planning nothing: %v", diags)
	}
	return p
}

var warning = diag.Diagnostics{{Severity: diag.Warning, Code: "test.warning", Summary: "mind this", Range: diag.Range{File: "a.yaml"}}}

// TestProblemsLeaveOutTheVerdict: diagnostics shown beside a plan never
// end with validate's "Success! The configuration is valid" line, and no
// diagnostics show nothing.
func TestProblemsLeaveOutTheVerdict(t *testing.T) {
	s, _, _ := testStreams()
	var b bytes.Buffer
	if err := s.problems(&b, warning); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.Contains(got, "mind this") || strings.Contains(got, "Success!") || !strings.HasSuffix(got, "\n") {
		t.Errorf("problems wrote %q", got)
	}
	b.Reset()
	if err := s.problems(&b, nil); err != nil || b.Len() != 0 {
		t.Errorf("no diagnostics wrote %q (%v)", b.String(), err)
	}
}

// TestPlanViewsWriteWhereTheySay: the human plan goes to the writer it was
// given (stderr when stdout carries the JSON plan), followed by where it
// was saved, and the diagnostics to stderr; the JSON view starts with the
// version event and puts diagnostics before the plan.
func TestPlanViewsWriteWhereTheySay(t *testing.T) {
	p := emptyPlan(t)
	s, out, errs := testStreams()
	v := NewPlan(false, s.Stderr, s)
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	if err := v.Plan(p, warning, &SavedPlan{Path: "plan.bin", ApplyArgs: []string{"plan.bin"}}); err != nil {
		t.Fatal(err)
	}
	got := errs.String()
	plan, saved, diagnostics := strings.Index(got, "No changes."), strings.Index(got, "Saved the plan to: plan.bin"), strings.Index(got, "mind this")
	if out.Len() != 0 || plan < 0 || saved < plan || diagnostics < saved {
		t.Errorf("stdout %q, stderr %q: want the plan, where it was saved, then the diagnostics, all on stderr", out.String(), got)
	}

	s, out, errs = testStreams()
	v = NewPlan(true, s.Stdout, s)
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	if err := v.Plan(p, warning, &SavedPlan{Path: "plan.bin", ApplyArgs: []string{"plan.bin"}}); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		_, after, _ := strings.Cut(line, `"type":"`)
		typ, _, _ := strings.Cut(after, `"`)
		types = append(types, typ)
	}
	if want := "version diagnostic change_summary"; strings.Join(types, " ") != want || errs.Len() != 0 {
		t.Errorf("events %v, stderr %q; want %s", types, errs.String(), want)
	}
}

// TestApplyViewsAskAndReport: only "yes" approves, the destroy question
// names destruction, and the JSON view (which has no one to ask) neither
// asks nor approves; an error becomes an apply.failed event only in JSON.
func TestApplyViewsAskAndReport(t *testing.T) {
	for _, tc := range []struct {
		op     applyview.Operation
		answer string
		want   bool
		asks   string
	}{
		{applyview.OpApply, "yes\n", true, "Do you want to perform these actions?"},
		{applyview.OpApply, "y\n", false, "Do you want to perform these actions?"},
		{applyview.OpDestroy, " yes \n", true, "Do you really want to destroy all resources?"},
		{applyview.OpDestroy, "", false, "Do you really want to destroy all resources?"},
	} {
		s, out, _ := testStreams()
		if got := NewApply(false, s).Approve(tc.op, func() string { return tc.answer }); got != tc.want || !strings.Contains(out.String(), tc.asks) {
			t.Errorf("%s answered %q: approved %v, asked %q", tc.op, tc.answer, got, out.String())
		}
	}
	s, out, _ := testStreams()
	j := NewApply(true, s)
	if j.Approve(applyview.OpApply, func() string { t.Error("the JSON view asked"); return "yes" }) {
		t.Error("the JSON view approved")
	}
	j.Error(errors.New("boom"))
	if got := out.String(); !strings.Contains(got, `"code":"apply.failed"`) || !strings.Contains(got, "boom") {
		t.Errorf("JSON error event = %q", got)
	}
	s, out, errs := testStreams()
	NewApply(false, s).Error(errors.New("boom"))
	if out.Len()+errs.Len() != 0 {
		t.Errorf("the human view wrote the error: %q %q", out.String(), errs.String())
	}
}

// TestInvokeViews: results reach people with control characters made
// harmless, and machines as JSON objects, leaving out a result that is not
// JSON rather than breaking the stream.
func TestInvokeViews(t *testing.T) {
	s, out, _ := testStreams()
	text := NewInvoke(false, s)
	text.Result("final {\"ok\": \"\x1b[31mred\"}")
	text.NoResult("vm", "control.reboot")
	if got := out.String(); strings.Contains(got, "\x1b") || !strings.Contains(got, "final: ") || !strings.Contains(got, "vm: control.reboot ran") {
		t.Errorf("text = %q", got)
	}
	s, out, errs := testStreams()
	j := NewInvoke(true, s)
	j.Result(`final {"ok": true}`)
	j.Result("final not json")
	j.NoResult("vm", "control.reboot")
	j.Output("script output")
	if got := out.String(); got != "{\"type\":\"final\",\"result\":{\"ok\": true}}\n" || errs.Len() != 0 {
		t.Errorf("json = %q, stderr = %q", got, errs.String())
	}
}

func TestUnknownFormatsAreRefused(t *testing.T) {
	s, _, _ := testStreams()
	if _, err := NewGraph("svg", s); err == nil {
		t.Error("graph --format svg was accepted")
	}
	if _, err := NewCandidates("yaml", s); err == nil {
		t.Error("candidates --format yaml was accepted")
	}
}

// TestStatusViews: people read the sync's answer as a summary line, its
// diagnostics and a table, with control characters made harmless and
// empty cells shown as "-"; machines get the answer byte for byte; an
// answer that is no status fails the human view, naming the sync.
func TestStatusViews(t *testing.T) {
	const answer = `{"ready":true,"reconciles":3,"last_reconcile":"2024-01-02T03:04:05Z","last_outcome":"applied","retry_queue":1,` +
		`"diagnostics":[{"severity":"warning","code":"x.y","summary":"mind \u001b[31mthis","at":"a.yaml:1:2"}],` +
		`"resources":[{"address":"vm","status":"active","last_check":"2024-01-02T03:04:05Z"},{"address":"net","status":"pending","waiting":"waits for vm"}]}`
	for _, tc := range []struct {
		name string
		json bool
		body string
		want string
		err  string
	}{
		{name: "text", body: answer, want: "Sync ready: 3 reconciles, last applied at 2024-01-02T03:04:05Z; 1 waiting for a retry.\n" +
			"a.yaml:1:2: warning: mind ␛[31mthis\n" +
			"ADDRESS  STATUS   LAST CHECK            WAITING\n" +
			"vm       active   2024-01-02T03:04:05Z  -\n" +
			"net      pending  -                     waits for vm\n"},
		{name: "text of a drifted resource", body: `{"resources":[{"address":"app","status":"active","drift":"check mode: Standard.configure would change 1 task(s)"}]}`,
			want: "Sync not ready: 0 reconciles, last -; 0 waiting for a retry.\n" +
				"ADDRESS  STATUS                                                                   LAST CHECK  WAITING\n" +
				"app      active (drifted: check mode: Standard.configure would change 1 task(s))  -           -\n"},
		{name: "text of an empty status", body: `{"resources":[]}`, want: "Sync not ready: 0 reconciles, last -; 0 waiting for a retry.\nADDRESS  STATUS  LAST CHECK  WAITING\n"},
		{name: "text of a cluster's leader", body: `{"ready":true,"reconciles":1,"last_outcome":"applied","retry_queue":0,` +
			`"resources":[{"address":"vm","status":"active","running_on":"b:2"}],` +
			`"cluster":{"member":"a:1","role":"leader","leader":"a:1","workspace":"prod","members":[` +
			`{"member":"a:1","host":"h1","leader":true,"alive":true,"capacity":10,"running":[]},` +
			`{"member":"b:2","host":"h2","alive":true,"capacity":10,"running":["vm"]},{"member":"c:3","host":"h3","alive":false,"capacity":4,"running":[]}]}}`,
			want: "Sync ready: 1 reconciles, last applied; 0 waiting for a retry.\n" +
				"Cluster of workspace prod, led by a:1; this is a:1, a leader.\n" +
				"MEMBER        HOST  ALIVE  ACTIONS AT ONCE  RUNNING\n" +
				"a:1 (leader)  h1    yes    10               -\n" +
				"b:2           h2    yes    10               vm\n" +
				"c:3           h3    no     4                -\n" +
				"\n" +
				"ADDRESS  STATUS  LAST CHECK  RUNNING ON  WAITING\n" +
				"vm       active  -           b:2         -\n"},
		{name: "text of a cluster's follower", body: `{"resources":[],"cluster":{"member":"b:2","role":"follower","leader":"a:1","workspace":"prod",` +
			`"members":[{"member":"a:1","host":"h1","leader":true,"alive":true,"capacity":10,"running":[]}]}}`,
			want: "Cluster of workspace prod, led by a:1; this is b:2, a follower.\n" +
				"MEMBER        HOST  ALIVE  ACTIONS AT ONCE  RUNNING\n" +
				"a:1 (leader)  h1    yes    10               -\n" +
				"\n" +
				"Ask the leader for the resources (its API, or xosplan status --listen on its address).\n"},
		{name: "json", json: true, body: answer + "\n", want: answer + "\n"},
		{name: "json of no status", json: true, body: "[1]", want: "[1]"},
		{name: "text of no status", body: "[1]", err: "the answer of 127.0.0.1:9 is not a status: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, out, errs := testStreams()
			err := NewStatus(tc.json, s).Answer("127.0.0.1:9", []byte(tc.body))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != tc.want || errs.Len() != 0 {
				t.Errorf("stdout\n%s\nstderr %q; want\n%s", got, errs.String(), tc.want)
			}
		})
	}
}

// TestSchemaView: the schema reaches stdout as it was made.
func TestSchemaView(t *testing.T) {
	s, out, errs := testStreams()
	if err := NewSchema(s).Schema([]byte("{\n  \"type\": \"object\"\n}\n")); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "{\n  \"type\": \"object\"\n}\n" || errs.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", got, errs.String())
	}
}
