package executor

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// leakyDriver prints and fails with every value of its request, ignoring
// Request.Redactor, as a careless driver would.
type leakyDriver struct{}

func (leakyDriver) Apply(_ context.Context, req Request) (Outcome, error) {
	text := graph.Render(req.Resolved) + " " + graph.Render(req.Inputs)
	req.Output("printing " + text)
	return Outcome{Feedback: state.Feedback{Output: text, BackendStatus: text, Status: state.Status{Message: text}}}, errors.New("failed with " + text)
}

// TestWalkRedactsWhatAnyDriverReports checks the walk's own redaction,
// whatever the driver does: of a secret known before the apply (an
// operation input) and of one that becomes whole only when resolved
// (a sensitive property joined with another resource's attribute).
func TestWalkRedactsWhatAnyDriverReports(t *testing.T) {
	ref := graph.Unknown{Func: "attribute", Args: []graph.Value{"a", "ip"}}
	dsn := graph.Unknown{Func: "concat", Args: []graph.Value{"pg://", ref, "/db"}}
	g := buildGraph(t, res{addr: "a"},
		res{addr: "b", deps: []string{"a"}, drv: "leaky", spec: map[string]graph.Value{"dsn": dsn},
			inputs: map[string]graph.Value{"PW": "op-input-secret"}})
	b, _ := g.Resource("b")
	b.Sensitive = []string{"dsn"}
	op := b.Driver.Operations["Standard.create"]
	op.Sensitive = []string{"PW"}
	b.Driver.Operations["Standard.create"] = op
	f := newFake()
	f.attrs["a"] = map[string]graph.Value{"ip": "10.9.8.7"}
	j := &memJournal{}
	var text strings.Builder
	opts := fastOpts()
	opts.Events = func(e Event) { text.WriteString(e.Line + e.Error + "\n") }
	rep, err := Walk(context.Background(), planOf(t, g, nil, planner.Options{}), nil, j, Registry{fakeName: f, "leaky": leakyDriver{}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Steps {
		text.WriteString(s.Error + "\n")
	}
	rec, _ := j.state(nil).Lookup("b")
	text.WriteString(rec.Feedback.Output + rec.Feedback.BackendStatus + rec.Feedback.Status.Message)
	for _, secret := range []string{"op-input-secret", "pg://10.9.8.7/db"} {
		if strings.Contains(text.String(), secret) {
			t.Errorf("%q leaked:\n%s", secret, text.String())
		}
	}
	if !strings.Contains(text.String(), "printing") || rep.Failed != 1 {
		t.Errorf("the driver's report is lost: %+v\n%s", rep, text.String())
	}
}
