package tosca

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// TestSecrets2 checks which values of a TOSCA 2.0 template the compiler
// marks sensitive, as TestSecrets does for 1.x: sensitive definitions
// (metadata sensitive: true, a sensitive data type or one derived from
// it, the profile's Credential), sensitive attributes, and whatever is
// derived from a secret through any function, at compile time or by an
// attribute reference resolved at apply time; the values stay real.
func TestSecrets2(t *testing.T) {
	g, diags := Compile(context.Background(), filepath.Join("testdata", "secrets2", "secrets.yaml"), Options{})
	requireNoErrors(t, diags)
	for _, rc := range []struct {
		addr      string
		sensitive []string
	}{
		{"db", []string{"attributes.token", "properties.password"}},
		{"app", []string{"capabilities.api.properties.url_path", "properties.api_key", "properties.dsn",
			"properties.first", "properties.login", "properties.url", "properties.vault"}},
		// app_url reads app's url, which reads db's sensitive attribute.
		{"web", []string{"properties.app_url"}},
	} {
		r, ok := g.Resource(rc.addr)
		if !ok {
			t.Errorf("no resource %s", rc.addr)
			continue
		}
		if !reflect.DeepEqual(r.Sensitive, rc.sensitive) {
			t.Errorf("%s sensitive paths = %v\nwant %v", rc.addr, r.Sensitive, rc.sensitive)
		}
	}
	app, _ := g.Resource("app")
	create := app.Driver.Operations["Standard.create"]
	if want := []string{"from_attribute", "from_capability", "from_derived", "from_input", "from_own", "key"}; !reflect.DeepEqual(create.Sensitive, want) {
		t.Errorf("app Standard.create sensitive inputs = %v\nwant %v", create.Sensitive, want)
	}
	for name, want := range map[string]graph.Value{"from_input": "pw-default-1", "from_derived": "pg://admin:pw-default-1@db",
		"from_own": "k3y-literal", "from_capability": "/pw-default-1", "plain_input": "admin"} {
		if got := create.Inputs[name]; !graph.Equal(got, want) {
			t.Errorf("input %s = %s, want %s", name, graph.Render(got), graph.Render(want))
		}
	}
	if got := app.Spec["properties"].(map[string]graph.Value)["first"]; got != "pw-default-1" {
		t.Errorf("app first = %v, want the real value", got)
	}
	web, _ := g.Resource("web")
	if got := web.Driver.Operations["Standard.create"].Sensitive; !reflect.DeepEqual(got, []string{"url"}) {
		t.Errorf("web Standard.create sensitive inputs = %v, want [url]", got)
	}
	if want := []string{"declared", "dsn", "password", "token", "via_web"}; !reflect.DeepEqual(g.SensitiveOutputs, want) {
		t.Errorf("sensitive outputs = %v\nwant %v", g.SensitiveOutputs, want)
	}
	if want := []graph.Value{"pw-default-1"}; !reflect.DeepEqual(g.Secrets, want) {
		t.Errorf("secrets = %v, want %v", g.Secrets, want)
	}
}

// TestDiagnosticsAboutSecretsNeverQuoteThem2 is the 2.0 version of
// TestDiagnosticsAboutSecretsNeverQuoteThem: a sensitive input, property,
// data type field or a value read from a sensitive input that breaks a
// validation clause, its type or a function is named with the rule it
// breaks, never quoted, and its diagnostic shows no source line.
func TestDiagnosticsAboutSecretsNeverQuoteThem2(t *testing.T) {
	file := filepath.Join("testdata", "secrets2", "diagnostics.yaml")
	secrets := []string{"Sh0rt7", "TOPSECRET9", "notanumber", "lit5", "tok3nList", "s3cr3t-default", "goodsecret1", "fixedS3cret", "otherS3cret"}
	for _, tc := range []struct {
		name   string
		inputs map[string]any
		want   string
		path   string
	}{
		{"sensitive input too short", map[string]any{"db_password": "Sh0rt7"},
			"a sensitive value does not satisfy the validation clause", "service_template.inputs.db_password"},
		{"sensitive input of the wrong type", map[string]any{"pin": "notanumber"},
			"a sensitive value is not of type integer", "service_template.inputs.pin"},
		{"sensitive default of the wrong type", nil,
			"a sensitive value is not of type integer", "service_template.inputs.code.default"},
		{"sensitive literal breaking its validation", nil,
			"a sensitive value does not satisfy the validation clause", "service_template.node_templates.db.properties.secret_literal"},
		{"field of a credential of the wrong type", nil,
			"a sensitive value is not of type string", "service_template.node_templates.db.properties.login.token"},
		{"sensitive input breaking the validation of its property", map[string]any{"db_password": "TOPSECRET9"},
			"a sensitive value does not satisfy the validation clause", "service_template.node_templates.db.properties.password"},
		{"another value for a fixed sensitive one", nil,
			`property "fixed_secret" has a fixed sensitive value; it cannot be assigned another`, "service_template.node_templates.db.properties.fixed_secret"},
		{"function of a sensitive input", nil,
			"$sum cannot be applied to its arguments, which hold a sensitive value", "service_template.node_templates.db.properties.next"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := Compile(context.Background(), file, Options{Inputs: tc.inputs})
			found := false
			for _, d := range diags {
				for _, s := range secrets {
					if strings.Contains(d.Summary, s) || strings.Contains(d.Detail, s) {
						t.Errorf("%s: diagnostic quotes %q: %s %s", d.Range, s, d.Summary, d.Detail)
					}
				}
				if !strings.HasPrefix(d.Summary, tc.want) || !strings.HasPrefix(d.Path, tc.path) {
					continue
				}
				found = true
				if !d.Sensitive {
					t.Errorf("%s: not marked Sensitive, so its source line would be shown", d.Summary)
				}
			}
			if !found {
				t.Errorf("no diagnostic at %s says %q; got:\n%v", tc.path, tc.want, diags.Err())
			}
		})
	}
}

// TestSecretAttributes checks, for 1.x, that a sensitive attribute is
// listed as "attributes.<name>" whether set or not (an operation output
// sets it at apply time), and that what reads it at apply time is secret
// along a chain of resources: properties, operation inputs and outputs.
func TestSecretAttributes(t *testing.T) {
	g, diags := Compile(context.Background(), filepath.Join("testdata", "secrets", "attributes.yaml"), Options{})
	requireNoErrors(t, diags)
	for addr, want := range map[string][]string{"db": {"attributes.token"}, "app": {"properties.url"}, "web": {"properties.url"}} {
		if r, _ := g.Resource(addr); r == nil || !reflect.DeepEqual(r.Sensitive, want) {
			t.Errorf("%s sensitive paths = %v, want %v", addr, r.Sensitive, want)
		}
	}
	app, _ := g.Resource("app")
	if got := app.Driver.Operations["Standard.create"].Sensitive; !reflect.DeepEqual(got, []string{"tok", "url"}) {
		t.Errorf("app Standard.create sensitive inputs = %v, want [tok url]", got)
	}
	if want := []string{"token", "url"}; !reflect.DeepEqual(g.SensitiveOutputs, want) {
		t.Errorf("sensitive outputs = %v, want %v", g.SensitiveOutputs, want)
	}
}

// TestIndex2ShowsNoSecret checks that the language server's index of a
// 2.0 template (hovers of definitions, inputs and outputs, what function
// calls resolve to) never holds a secret: a call that reads one, or that
// is the value of a sensitive definition, says it is sensitive instead.
func TestIndex2ShowsNoSecret(t *testing.T) {
	_, x, diags := CompileIndexed(context.Background(), filepath.Join("testdata", "secrets2", "secrets.yaml"), Options{})
	requireNoErrors(t, diags)
	hidden := 0
	for _, c := range x.Calls {
		if strings.Contains(c.Result, "pw-default-1") || strings.Contains(c.Result, "k3y-literal") {
			t.Errorf("call %s at %s resolves to %q", c.Function, c.Range, c.Result)
		}
		if c.Result == core.CallResult(nil, true) {
			hidden++
		}
	}
	// $get_input of db_password (db, app's first, url_path, from_input,
	// the output) and what reads a secret property.
	if hidden < 8 {
		t.Errorf("%d calls are said to be sensitive, want at least 8: %+v", hidden, x.Calls)
	}
	for _, s := range x.Symbols {
		if strings.Contains(s.Detail, "pw-default-1") || strings.Contains(s.Detail, "k3y-literal") {
			t.Errorf("%s %s shows a secret: %q", s.Kind, s.Name, s.Detail)
		}
	}
}
