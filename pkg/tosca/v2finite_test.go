package tosca

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// TestNonFiniteFloats2: TOSCA 2.0 floats include the infinities and
// not-a-number (§9.1.1.3); the graph, whose values JSON must hold, carries
// them as their YAML 1.2 text, in properties, operation inputs and outputs
// alike, and the largest finite floats as numbers.
func TestNonFiniteFloats2(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "main.yaml")
	err := os.WriteFile(main, []byte(`tosca_definitions_version: tosca_2_0
imports: [ { profile: org.oasis-open.simple:2.0 } ]
node_types:
  Gauge:
    derived_from: Root
    properties:
      readings: { type: list, entry_schema: float }
      limit: { type: float }
      largest: { type: float }
service_template:
  node_templates:
    gauge:
      type: Gauge
      properties:
        readings: [ .inf, -.Inf, .NaN, 1.5 ]
        limit: -.inf
        largest: 1.7976931348623157e+308
      interfaces:
        Standard:
          operations:
            create:
              implementation: create.sh
              inputs:
                limit: { $get_property: [ SELF, limit ] }
  outputs:
    limit: { type: float, value: { $get_property: [ gauge, limit ] } }
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	g, diags := Compile(context.Background(), main, Options{Root: rootAt(t, dir)})
	for _, d := range diags {
		if d.Severity == diag.Error {
			t.Fatalf("error: %v", d)
		}
	}
	r, ok := g.Resource("gauge")
	if !ok {
		t.Fatal("no resource gauge")
	}
	props, _ := r.Spec["properties"].(map[string]graph.Value)
	want := map[string]graph.Value{
		"readings": []graph.Value{".inf", "-.inf", ".nan", 1.5},
		"limit":    "-.inf",
		"largest":  1.7976931348623157e+308,
	}
	if !graph.Equal(props, want) {
		t.Errorf("properties = %#v, want %#v", props, want)
	}
	if got := r.Driver.Operations["Standard.create"].Inputs["limit"]; got != "-.inf" {
		t.Errorf("operation input limit = %#v, want \"-.inf\"", got)
	}
	if got := g.Outputs["limit"]; got != "-.inf" {
		t.Errorf("output limit = %#v, want \"-.inf\"", got)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("the resource has no JSON form: %v", err)
	}
}
