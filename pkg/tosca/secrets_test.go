package tosca

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TestSecrets checks which operation inputs and properties the compiler
// marks sensitive: those with a sensitive definition and those derived
// from a sensitive input or property, through any function; the values
// themselves stay real (apply needs them).
func TestSecrets(t *testing.T) {
	g, diags := Compile(context.Background(), filepath.Join("testdata", "secrets", "secrets.yaml"), Options{})
	requireNoErrors(t, diags)
	app, ok := g.Resource("app")
	if !ok {
		t.Fatal("no resource app")
	}
	ops := []struct {
		key       string
		sensitive []string
	}{
		{"Standard.create", []string{"defined_secret", "from_capability", "from_derived", "from_input", "from_own",
			"from_property", "iface_secret", "joined", "nested", "token"}},
		{"Standard.configure", []string{"iface_secret"}},
	}
	for _, o := range ops {
		op, ok := app.Driver.Operations[o.key]
		if !ok {
			t.Errorf("app has no operation %s", o.key)
			continue
		}
		if !reflect.DeepEqual(op.Sensitive, o.sensitive) {
			t.Errorf("app %s sensitive inputs = %v\nwant %v", o.key, op.Sensitive, o.sensitive)
		}
	}
	create := app.Driver.Operations["Standard.create"]
	for name, want := range map[string]graph.Value{"from_input": "pw-default", "from_derived": "pg://admin:pw-default@db",
		"joined": "admin:pw-default", "token": "pw", "plain_input": "admin", "plain_host": int64(2),
		"from_capability": "/pw-default"} {
		if got := create.Inputs[name]; !graph.Equal(got, want) {
			t.Errorf("input %s = %s, want %s", name, graph.Render(got), graph.Render(want))
		}
	}
	resources := []struct {
		addr      string
		sensitive []string
	}{
		// admin_credential: a tosca.datatypes.Credential property of
		// SoftwareComponent, sensitive whether set or not.
		{"app", []string{"properties.admin_credential", "properties.api_key", "properties.dsn", "properties.login"}},
		{"db", []string{"properties.password"}},
		{"dbms", []string{"properties.admin_credential"}},
		{"host", []string{"capabilities.endpoint.properties.url_path"}},
	}
	for _, rc := range resources {
		r, ok := g.Resource(rc.addr)
		if !ok {
			t.Errorf("no resource %s", rc.addr)
			continue
		}
		if !reflect.DeepEqual(r.Sensitive, rc.sensitive) {
			t.Errorf("%s sensitive paths = %v, want %v", rc.addr, r.Sensitive, rc.sensitive)
		}
	}
}
