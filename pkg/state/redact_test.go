package state

import (
	"reflect"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

func TestRedacted(t *testing.T) {
	spec := func() map[string]graph.Value {
		return map[string]graph.Value{
			"password":               "s3cret",
			"db":                     map[string]graph.Value{"user": "u", "pass": "p"},
			"keys":                   []graph.Value{"k0", "k1"},
			"plain":                  "visible",
			"configuration.apiToken": "t0ken",
		}
	}
	// with returns spec() with the given top-level values replaced.
	with := func(kv ...any) map[string]graph.Value {
		m := spec()
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		name      string
		sensitive []string
		want      map[string]graph.Value
	}{
		{"none", nil, spec()},
		{"top level", []string{"password"}, with("password", SensitiveMarker)},
		{"nested and indexed", []string{"db.pass", "keys.1", "missing.path", "keys.9"}, with(
			"db", map[string]graph.Value{"user": "u", "pass": SensitiveMarker},
			"keys", []graph.Value{"k0", SensitiveMarker})},
		{"whole map", []string{"db"}, with("db", SensitiveMarker)},
		{"key with a dot", []string{"configuration.apiToken"}, with("configuration.apiToken", SensitiveMarker)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Resource{Address: "a", Spec: spec(), Sensitive: c.sensitive, Feedback: Feedback{Resolved: spec()}}
			got := r.Redacted()
			if !reflect.DeepEqual(got.Spec, c.want) || !reflect.DeepEqual(got.Feedback.Resolved, c.want) {
				t.Errorf("Redacted spec = %v\nwant %v", got.Spec, c.want)
			}
			if !reflect.DeepEqual(r.Spec, spec()) {
				t.Errorf("Redacted modified the original: %v", r.Spec)
			}
		})
	}
}

func TestRedactedOperationInputs(t *testing.T) {
	ops := func() map[string]graph.Operation {
		return map[string]graph.Operation{
			"Standard.create": {Implementation: "create.sh",
				Inputs:    map[string]graph.Value{"db_password": "s3cret", "db_user": "u"},
				Sensitive: []string{"db_password", "absent"}},
			"Standard.delete": {Implementation: "delete.sh", Inputs: map[string]graph.Value{"db_user": "u"}},
		}
	}
	r := Resource{Address: "db", Driver: graph.Driver{Name: graph.DriverExec, Operations: ops()}}
	got := r.Redacted()
	want := ops()
	create := want["Standard.create"]
	create.Inputs = map[string]graph.Value{"db_password": SensitiveMarker, "db_user": "u"}
	want["Standard.create"] = create
	if !reflect.DeepEqual(got.Driver.Operations, want) {
		t.Errorf("Redacted operations = %v\nwant %v", got.Driver.Operations, want)
	}
	if !reflect.DeepEqual(r.Driver.Operations, ops()) {
		t.Errorf("Redacted modified the original: %v", r.Driver.Operations)
	}
}

// TestRedactedAttributes checks that a sensitive path "attributes.<name>"
// masks the attribute an operation output recorded, and only that one.
func TestRedactedAttributes(t *testing.T) {
	attrs := func() map[string]graph.Value {
		return map[string]graph.Value{"token": "t0ken-value", "keys": []graph.Value{"k0", "k1"}, "host": "db.internal"}
	}
	r := Resource{Address: "db", Sensitive: []string{"attributes.keys.1", "attributes.token", "properties.password"},
		Spec: map[string]graph.Value{"properties": map[string]graph.Value{"password": "pw"}}, Feedback: Feedback{Attributes: attrs()}}
	got := r.Redacted()
	want := map[string]graph.Value{"token": SensitiveMarker, "keys": []graph.Value{"k0", SensitiveMarker}, "host": "db.internal"}
	if !reflect.DeepEqual(got.Feedback.Attributes, want) {
		t.Errorf("Redacted attributes = %v\nwant %v", got.Feedback.Attributes, want)
	}
	if !reflect.DeepEqual(r.Feedback.Attributes, attrs()) {
		t.Errorf("Redacted modified the original: %v", r.Feedback.Attributes)
	}
}
