package tosca

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TestLookupAndImportFilter: the read operation of an
// xosplan.interfaces.Lookup interface (1.x) or io.xosplan:1.0's Lookup
// (2.0) is the driver's graph.OpLookup, on a driver that runs it (exec,
// even without lifecycle operations); an unmanaged template's keys are
// XOS's tosca_key fields (kept by a type derived from the model) or the
// properties a select template assigns, its secrets left out; the
// metadata xosplan.import.filter is graph.Resource.Import.
func TestLookupAndImportFilter(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"v13.yaml": `tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  demo.Net:
    derived_from: tosca.nodes.Root
    properties:
      name: { type: string }
      token: { type: string, required: false, metadata: { sensitive: "true" } }
    interfaces:
      Lookup:
        type: xosplan.interfaces.Lookup
        operations:
          read: lookup.sh
topology_template:
  node_templates:
    public:
      type: demo.Net
      directives: [select]
      properties: { name: public, token: s3cret }
    owned:
      type: demo.Net
      metadata:
        xosplan.import.filter: name=owned zone="eu west"
      properties: { name: owned }
`,
		"xos.yaml": `tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - custom_types/user.yaml
node_types:
  xos.LookedUpUser:
    derived_from: tosca.nodes.User
    interfaces:
      Lookup:
        type: xosplan.interfaces.Lookup
        read: lookup.sh
topology_template:
  node_templates:
    admin:
      type: xos.LookedUpUser
      properties: { email: a@b.c, must-exist: true }
`,
		"v20.yaml": `tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
    namespace: simple
  - profile: io.xosplan:1.0
    namespace: xosplan
node_types:
  Net:
    derived_from: simple:Root
    properties:
      name: { type: string }
    interfaces:
      Lookup:
        type: xosplan:Lookup
        operations:
          read: lookup.sh
service_template:
  node_templates:
    public:
      type: Net
      directives: [select]
      properties: { name: public }
    owned:
      type: Net
      metadata:
        xosplan.import.filter: name=owned
      properties: { name: owned }
`,
		"lookup.sh": "echo status=missing >> \"$XOSPLAN_OUTPUTS\"\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		file, addr string
		mgmt       graph.Management
		lookup     map[string]graph.Value
		filter     map[string]graph.Value
	}{
		{"v13.yaml", "public", graph.Unmanaged, map[string]graph.Value{"name": "public"}, nil},
		{"v13.yaml", "owned", graph.Managed, nil, map[string]graph.Value{"name": "owned", "zone": "eu west"}},
		{"xos.yaml", "admin", graph.Unmanaged, map[string]graph.Value{"email": "a@b.c"}, nil},
		{"v20.yaml", "public", graph.Unmanaged, map[string]graph.Value{"name": "public"}, nil},
		{"v20.yaml", "owned", graph.Managed, nil, map[string]graph.Value{"name": "owned"}},
	} {
		g, diags := Compile(context.Background(), filepath.Join(dir, tc.file), Options{Root: rootAt(t, dir)})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", tc.file, diags)
		}
		r, ok := g.Resource(tc.addr)
		if !ok {
			t.Fatalf("%s: no %s", tc.file, tc.addr)
		}
		if r.Management != tc.mgmt || !maps.Equal(r.Lookup, tc.lookup) || !maps.Equal(r.Import, tc.filter) {
			t.Errorf("%s %s: management %s, lookup %v, import %v; want %s, %v, %v", tc.file, tc.addr, r.Management, r.Lookup, r.Import, tc.mgmt, tc.lookup, tc.filter)
		}
		if op := r.Driver.Operations[graph.OpLookup]; op.Implementation != "lookup.sh" || r.Driver.Name != graph.DriverExec {
			t.Errorf("%s %s: driver %s, lookup %+v", tc.file, tc.addr, r.Driver.Name, op)
		}
	}
}
