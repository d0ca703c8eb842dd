package driver

import (
	"errors"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

func TestLookupOutcome(t *testing.T) {
	keys := map[string]graph.Value{"name": "mysite", "port": int64(8)}
	req := Request{Action: ActionRead, Address: "mysite",
		Resource: &graph.Resource{Address: "mysite", Type: "tosca.nodes.Site", Lookup: keys}}
	same := func(s string) string { return s }
	for _, tc := range []struct {
		name    string
		outputs map[string]graph.Value
		err     error
		errText string
		id      string
		attrs   map[string]graph.Value
	}{
		{name: "one object", outputs: map[string]graph.Value{"id": "s-1", "region": "eu"}, id: "s-1", attrs: map[string]graph.Value{"region": "eu"}},
		{name: "found without id", outputs: map[string]graph.Value{"status": "found"}},
		{name: "missing", outputs: map[string]graph.Value{"status": "missing"}, err: ErrNotFound,
			errText: `not found: no tosca.nodes.Site with name = "mysite", port = 8`},
		{name: "one object that is another", outputs: map[string]graph.Value{"id": "s-2", "name": "other"}, err: ErrNotFound},
		{name: "objects, one matches", id: "s-2", attrs: map[string]graph.Value{"name": "mysite", "port": "8"},
			outputs: map[string]graph.Value{"objects": `[{"id":"s-1","name":"other","port":8},{"id":"s-2","name":"mysite","port":"8"}]`}},
		{name: "objects, none", err: ErrNotFound, outputs: map[string]graph.Value{"objects": `[{"id":"s-1","name":"mysite"}]`}},
		{name: "objects, several", err: ErrAmbiguous, errText: `"s-1", "s-2"`,
			outputs: map[string]graph.Value{"objects": `[{"id":"s-2","name":"mysite","port":8},{"id":"s-1","name":"mysite","port":8}]`}},
		{name: "objects not JSON", errText: "objects is not a JSON list", outputs: map[string]graph.Value{"objects": `{`}},
		{name: "object not a map", errText: "objects[0] is not an object", outputs: map[string]graph.Value{"objects": `[1]`}},
		{name: "bad status", errText: `status "gone", which is neither`, outputs: map[string]graph.Value{"status": "gone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := LookupOutcome(req, state.Feedback{}, tc.outputs, same)
			if tc.err == nil && tc.errText == "" {
				if err != nil {
					t.Fatal(err)
				}
				fb := out.Feedback
				if fb.InstanceID != tc.id || fb.BackendCode != state.BackendOK || !fb.Status.Active {
					t.Errorf("feedback %+v", fb)
				}
				if !strings.HasPrefix(fb.BackendStatus, "found") || fb.BackendStatus == "ok" {
					t.Errorf("backend status %q", fb.BackendStatus)
				}
				for k, v := range tc.attrs {
					if fb.Attributes[k] != v {
						t.Errorf("attribute %s = %#v, want %#v", k, fb.Attributes[k], v)
					}
				}
				if _, ok := fb.Attributes["id"]; ok {
					t.Errorf("the id is an attribute: %v", fb.Attributes)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error; outcome %+v", out)
			}
			if tc.err != nil && !errors.Is(err, tc.err) {
				t.Errorf("error %v is not %v", err, tc.err)
			}
			if !strings.Contains(err.Error(), tc.errText) {
				t.Errorf("error %q lacks %q", err, tc.errText)
			}
			if out.Feedback.BackendCode != state.BackendError || !out.Feedback.Status.Failed {
				t.Errorf("a failed lookup is not recorded failed: %+v", out.Feedback)
			}
		})
	}
}

func TestLookupInputs(t *testing.T) {
	req := Request{Resource: &graph.Resource{Lookup: map[string]graph.Value{"email": "a@b.c"}},
		Inputs: map[string]map[string]graph.Value{graph.OpLookup: {"region": "eu"}}}
	got, err := LookupInputs(req, graph.Operation{Inputs: map[string]graph.Value{"ignored": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	in := got.Inputs[graph.OpLookup]
	if in[LookupInput] != `{"email":"a@b.c"}` || in["region"] != "eu" || in["ignored"] != nil {
		t.Errorf("inputs = %v", in)
	}
	if _, ok := req.Inputs[graph.OpLookup][LookupInput]; ok {
		t.Error("the request's inputs were modified")
	}
	got, _ = LookupInputs(Request{}, graph.Operation{Inputs: map[string]graph.Value{"declared": "y"}})
	if in := got.Inputs[graph.OpLookup]; in[LookupInput] != `{}` || in["declared"] != "y" {
		t.Errorf("inputs without keys = %v", in)
	}
}

func TestKeysText(t *testing.T) {
	got := KeysText(map[string]graph.Value{"name": "a\"b", "port": int64(8), "tags": []graph.Value{"x"}})
	if want := `name = "a\"b", port = 8, tags = ["x"]`; got != want {
		t.Errorf("KeysText = %s, want %s", got, want)
	}
}

// FuzzLookupOutcome: whatever a lookup script reports, judging it never
// panics, and a success always names one object.
func FuzzLookupOutcome(f *testing.F) {
	f.Add("", `[{"id":"a","name":"x"}]`)
	f.Add("found", `[{"id":1,"name":"x"},{"id":2,"name":"x"}]`)
	f.Add("missing", "")
	f.Add("", `[{"id":null,"name":["x"]}]`)
	req := Request{Resource: &graph.Resource{Type: "t", Lookup: map[string]graph.Value{"name": "x"}}}
	f.Fuzz(func(t *testing.T, status, objects string) {
		outputs := map[string]graph.Value{}
		if status != "" {
			outputs[LookupStatusOutput] = status
		}
		if objects != "" {
			outputs[LookupObjectsOutput] = objects
		}
		out, err := LookupOutcome(req, state.Feedback{}, outputs, func(s string) string { return s })
		if err == nil && len(out.Candidates) != 1 {
			t.Errorf("success with %d candidates", len(out.Candidates))
		}
	})
}
