//go:build unix

package executor

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/driver/drivertest"
	"github.com/xosplan/xosplan/driver/exec"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/redact"
)

const testSecret = "hunter2/s3cr3t+key"

// TestApplyRedactsSecretsFromOutputErrorsReportAndJournal runs a real
// script that prints a secret operation input, a secret only the
// configuration knows (graph.Secrets) and their encodings, on stdout and
// stderr, a secret split across two writes, then fails: no event, report
// entry or journal record may hold any of them.
func TestApplyRedactsSecretsFromOutputErrorsReportAndJournal(t *testing.T) {
	const other = "only-in-graph-secrets"
	var printed strings.Builder
	for _, f := range testutil.SecretForms(testSecret) {
		printed.WriteString("echo '" + f + "'\n")
		printed.WriteString("echo 'err " + f + "' >&2\n")
	}
	dir := t.TempDir()
	testutil.WriteScript(t, dir, "create.sh", printed.String()+`printf 'half %s' "${PW%%s3cr3t*}"; sleep 0.05; printf 's3cr3t+key\n'
echo "$PW `+other+`"
echo "last: $PW" >&2
exit 3
`)
	g := graph.New()
	r := &graph.Resource{Address: "db", Type: "test.Db", Management: graph.Managed,
		Spec:      map[string]graph.Value{"properties": map[string]graph.Value{"password": testSecret}},
		Sensitive: []string{"properties.password"},
		Driver: graph.Driver{Name: graph.DriverExec, Operations: map[string]graph.Operation{"Standard.create": {
			Implementation: "create.sh", Inputs: map[string]graph.Value{"PW": testSecret}, Sensitive: []string{"PW"}}}},
		Range: diag.Range{File: filepath.Join(dir, "stack.yaml")}}
	if err := g.AddResource(r); err != nil {
		t.Fatal(err)
	}
	g.Secrets = []graph.Value{other}
	p := planOf(t, g, nil, planner.Options{})
	j := &memJournal{}
	var events []Event
	opts := fastOpts()
	opts.Desired = g
	opts.Events = func(e Event) { events = append(events, e) }
	rep, err := Walk(context.Background(), p, nil, j, Registry{graph.DriverExec: exec.New(drivertest.Options(""))}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 1 {
		t.Fatalf("report %+v, want the create failed", rep)
	}
	shown := 0
	var all strings.Builder
	for _, e := range events {
		all.WriteString(e.Line + "\n" + e.Error + "\n")
		if e.Type == EventOutput && strings.Contains(e.Line, "(sensitive value)") {
			shown++
		}
	}
	for _, s := range rep.Steps {
		all.WriteString(s.Error + "\n")
	}
	for _, rec := range j.recs {
		if rec.Resource == nil {
			continue
		}
		// The resolved spec keeps the real value, as state does; the text
		// a driver reported must not.
		fb := rec.Resource.Feedback
		all.WriteString(fb.Output + "\n" + fb.BackendStatus + "\n" + fb.Status.Message + "\n")
	}
	for _, f := range append(redact.Encodings(testSecret), redact.Encodings(other)...) {
		if strings.Contains(all.String(), f) {
			t.Errorf("%q leaked:\n%s", f, all.String())
		}
	}
	if shown < 2*len(testutil.SecretForms(testSecret)) {
		t.Errorf("%d output lines show the marker, want the %d the script printed", shown, 2*len(testutil.SecretForms(testSecret)))
	}
	fb := j.state(nil).Resources[0].Feedback
	if !strings.Contains(fb.Output, "half (sensitive value)") || !strings.HasSuffix(fb.Status.Message, "last: (sensitive value)") {
		t.Errorf("feedback output %q, message %q", fb.Output, fb.Status.Message)
	}
	if got := j.state(nil).Resources[0].Spec["properties"].(map[string]graph.Value)["password"]; got != testSecret {
		t.Errorf("the enacted spec holds %v; state keeps the real value, only what drivers print is redacted", got)
	}
}
