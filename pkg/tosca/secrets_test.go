package tosca

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/diag"
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

// secretDiagnostic compiles testdata/secrets/diagnostics.yaml with the
// given input values and returns the diagnostic whose summary holds want.
func secretDiagnostic(t *testing.T, inputs map[string]any, want string) diag.Diagnostic {
	t.Helper()
	_, diags := Compile(context.Background(), filepath.Join("testdata", "secrets", "diagnostics.yaml"), Options{Inputs: inputs})
	for _, d := range diags {
		if strings.Contains(d.Summary, want) {
			return d
		}
	}
	t.Fatalf("no diagnostic says %q; got:\n%v", want, diags.Err())
	return diag.Diagnostic{}
}

// TestDiagnosticsAboutSecretsNeverQuoteThem checks that a value of a
// sensitive input, property or data type that breaks a constraint or its
// type is named with the rule it breaks, never quoted or measured, and
// that its diagnostic shows no source line (Sensitive).
func TestDiagnosticsAboutSecretsNeverQuoteThem(t *testing.T) {
	secrets := []string{"Sh0rt7", "TOPSECRET9", "notanumber", "lit5", "tok3nList", "(length"}
	for _, tc := range []struct {
		name   string
		inputs map[string]any
		want   string
	}{
		{"sensitive input too short", map[string]any{"db_password": "Sh0rt7"},
			`input "db_password": the value does not satisfy "min_length: 8"`},
		{"sensitive input of the wrong type", map[string]any{"pin": "notanumber"},
			`input "pin": the value is not of type integer`},
		{"sensitive literal too short", nil,
			`property "secret_literal": the value does not satisfy "min_length: 8"`},
		{"field of a credential of the wrong type", nil,
			`field "token": the value is not of type string`},
		{"sensitive input breaking the pattern of its property", map[string]any{"db_password": "TOPSECRET9"},
			`property "password": the value does not satisfy "pattern: '[a-z0-9]+'"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := secretDiagnostic(t, tc.inputs, tc.want)
			if !d.Sensitive {
				t.Errorf("%s: not marked Sensitive, so its source line would be shown", d.Summary)
			}
			_, diags := Compile(context.Background(), filepath.Join("testdata", "secrets", "diagnostics.yaml"), Options{Inputs: tc.inputs})
			for _, d := range diags {
				for _, s := range secrets {
					if strings.Contains(d.Summary, s) || strings.Contains(d.Detail, s) {
						t.Errorf("%s: diagnostic quotes %q: %s %s", d.Range, s, d.Summary, d.Detail)
					}
				}
			}
		})
	}
}

// TestConstraintsCheckTheValueAnInputGives checks that a property's
// constraints (and its data type's) hold for the value get_input reads,
// as for a literal: positioned at the property, naming the input.
func TestConstraintsCheckTheValueAnInputGives(t *testing.T) {
	for _, tc := range []struct {
		name      string
		inputs    map[string]any
		want      string
		input     string
		sensitive bool
	}{
		{"pattern, from a sensitive input", map[string]any{"db_password": "TOPSECRET9"},
			`property "password": the value does not satisfy "pattern: '[a-z0-9]+'"`, "db_password", true},
		{"range, from a plain input", map[string]any{"port": int64(70000)},
			`property "port": the value 70000 does not satisfy "in_range: [1, 65535]"`, "port", false},
		{"a data type's field", map[string]any{"limits": map[string]any{"code": "ABC"}},
			`property "limits" field "code": the value "ABC" does not satisfy "pattern: '[a-z]+'"`, "limits", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := secretDiagnostic(t, tc.inputs, tc.want)
			if d.Code != CodeConstraint {
				t.Errorf("code = %s, want %s", d.Code, CodeConstraint)
			}
			if !strings.HasPrefix(d.Path, "topology_template.node_templates.db.properties.") {
				t.Errorf("path = %s, want the property's", d.Path)
			}
			if want := `input "` + tc.input + `"`; !strings.Contains(d.Detail, want) {
				t.Errorf("detail = %q, want it to name %s", d.Detail, want)
			}
			if d.Sensitive != tc.sensitive {
				t.Errorf("sensitive = %v, want %v", d.Sensitive, tc.sensitive)
			}
		})
	}
	// The values the template's defaults give break nothing.
	_, diags := Compile(context.Background(), filepath.Join("testdata", "secrets", "diagnostics.yaml"), Options{})
	for _, d := range diags {
		if strings.Contains(d.Detail, "comes from input") {
			t.Errorf("unexpected: %s: %s", d.Summary, d.Detail)
		}
	}
}

// TestOutputsDerivedFromSecretsAreSensitive checks Graph.SensitiveOutputs
// (outputs declared sensitive or computed from a secret) and
// Graph.Secrets (the sensitive inputs' values, which apply redacts).
func TestOutputsDerivedFromSecretsAreSensitive(t *testing.T) {
	g, diags := Compile(context.Background(), filepath.Join("testdata", "secrets", "outputs.yaml"), Options{})
	requireNoErrors(t, diags)
	if want := []string{"declared", "from_input", "from_property", "joined"}; !reflect.DeepEqual(g.SensitiveOutputs, want) {
		t.Errorf("sensitive outputs = %v, want %v", g.SensitiveOutputs, want)
	}
	if want := []graph.Value{"pw-default"}; !reflect.DeepEqual(g.Secrets, want) {
		t.Errorf("secrets = %v, want %v", g.Secrets, want)
	}
}
