package state

import (
	"reflect"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

func TestRedacted(t *testing.T) {
	spec := func() map[string]graph.Value {
		return map[string]graph.Value{
			"password": "s3cret",
			"db":       map[string]graph.Value{"user": "u", "pass": "p"},
			"keys":     []graph.Value{"k0", "k1"},
			"plain":    "visible",
		}
	}
	cases := []struct {
		name      string
		sensitive []string
		want      map[string]graph.Value
	}{
		{"none", nil, spec()},
		{"top level", []string{"password"}, map[string]graph.Value{
			"password": SensitiveMarker, "db": map[string]graph.Value{"user": "u", "pass": "p"},
			"keys": []graph.Value{"k0", "k1"}, "plain": "visible"}},
		{"nested and indexed", []string{"db.pass", "keys.1", "missing.path", "keys.9"}, map[string]graph.Value{
			"password": "s3cret", "db": map[string]graph.Value{"user": "u", "pass": SensitiveMarker},
			"keys": []graph.Value{"k0", SensitiveMarker}, "plain": "visible"}},
		{"whole map", []string{"db"}, map[string]graph.Value{
			"password": "s3cret", "db": SensitiveMarker, "keys": []graph.Value{"k0", "k1"}, "plain": "visible"}},
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
