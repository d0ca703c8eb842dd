//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
)

// The secrets of secretStacks: secretValue is a sensitive input's
// default; secretToken is what db's create reports for its sensitive
// attribute token, known to nobody before; secretLink is what app's
// relationship to db reports for the relationship's sensitive attribute
// link_token.
const (
	secretValue = "s3cr3t-VALUE-42"
	secretToken = "T0KEN-from-script-99"
	secretLink  = "L1NK-from-script-77"
)

// The scripts of secretStacks receive the secrets and print them, as a
// careless script would: apply redacts what they print.
const (
	secretDBScript   = "echo \"token=" + secretToken + "\" >> \"$XOSPLAN_OUTPUTS\"\necho \"db got $pw\"\n"
	secretAppScript  = "echo \"app got $pw, $tok and $dsn\"\nprintf %s \"$pw\" | base64\nprintf %s \"$tok\" | base64\n"
	secretLinkScript = "echo \"link_token=" + secretLink + "\" >> \"$XOSPLAN_OUTPUTS\"\n"
)

// secretStacks holds the same service as a TOSCA 1.3 and a TOSCA 2.0
// template: a sensitive input, a property set from it, one derived from
// it, a sensitive attribute an operation output sets, a property and
// operation inputs derived from that attribute, a sensitive attribute of
// a relationship that the relationship's operation output sets, and
// outputs of each;
// bad.yaml gives a sensitive integer input a value that is not one.
var secretStacks = map[string]map[string]string{
	"tosca13": {
		"stack.yaml": `tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  demo.Db:
    derived_from: tosca.nodes.Root
    properties:
      password: { type: string }
    attributes:
      token: { type: string, metadata: { sensitive: true } }
    capabilities:
      link: tosca.capabilities.Endpoint
  demo.App:
    derived_from: tosca.nodes.Root
    properties:
      dsn: { type: string }
      url: { type: string }
    requirements:
      - db: { capability: tosca.capabilities.Endpoint, node: demo.Db, relationship: demo.Link }
relationship_types:
  demo.Link:
    derived_from: tosca.relationships.ConnectsTo
    attributes:
      link_token: { type: string, metadata: { sensitive: true } }
    interfaces:
      Configure:
        operations:
          pre_configure_source:
            implementation: link.sh
            outputs:
              link_token: [ SELF, link_token ]
topology_template:
  inputs:
    db_password: { type: string, metadata: { sensitive: true }, default: ` + secretValue + ` }
    pin: { type: integer, metadata: { sensitive: true }, default: 1234 }
  node_templates:
    db:
      type: demo.Db
      properties:
        password: { get_input: db_password }
      interfaces:
        Standard:
          create:
            implementation: db.sh
            inputs:
              pw: { get_input: db_password }
    app:
      type: demo.App
      requirements:
        - db: { node: db, relationship: link }
      properties:
        dsn: { concat: [ "pg://admin:", { get_input: db_password }, "@db" ] }
        url: { concat: [ "https://", { get_attribute: [ db, token ] }, "@api" ] }
      interfaces:
        Standard:
          create:
            implementation: app.sh
            inputs:
              pw: { get_input: db_password }
              tok: { get_attribute: [ db, token ] }
              dsn: { get_property: [ SELF, dsn ] }
  outputs:
    password: { value: { get_input: db_password } }
    dsn: { value: { get_property: [ app, dsn ] } }
    token: { value: { get_attribute: [ db, token ] } }
    url: { value: { get_attribute: [ app, url ] } }
    link: { value: { get_attribute: [ link, link_token ] } }
  relationship_templates:
    link: { type: demo.Link }
`,
		"bad.yaml": `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  inputs:
    pin: { type: integer, metadata: { sensitive: true }, default: ` + secretValue + ` }
`,
	},
	"tosca20": {
		"stack.yaml": `tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
node_types:
  Db:
    derived_from: Root
    properties:
      password: { type: string }
    attributes:
      token: { type: string, metadata: { sensitive: true } }
    capabilities:
      link: { type: Endpoint }
  App:
    derived_from: Root
    properties:
      dsn: { type: string }
      url: { type: string }
    requirements:
      - db: { capability: Endpoint, node: Db, relationship: Link }
relationship_types:
  Link:
    derived_from: ConnectsTo
    attributes:
      link_token: { type: string, metadata: { sensitive: true } }
    interfaces:
      Configure:
        type: Configure
        operations:
          pre_configure_source:
            implementation: link.sh
            outputs:
              link_token: { type: string, mapping: [ SELF, link_token ] }
service_template:
  inputs:
    db_password: { type: string, metadata: { sensitive: true }, default: ` + secretValue + ` }
    pin: { type: integer, metadata: { sensitive: true }, default: 1234 }
  node_templates:
    db:
      type: Db
      properties:
        password: { $get_input: db_password }
      interfaces:
        Standard:
          operations:
            create:
              implementation: db.sh
              inputs:
                pw: { $get_input: db_password }
    app:
      type: App
      requirements:
        - db: db
      properties:
        dsn: { $concat: [ "pg://admin:", { $get_input: db_password }, "@db" ] }
        url: { $concat: [ "https://", { $get_attribute: [ db, token ] }, "@api" ] }
      interfaces:
        Standard:
          operations:
            create:
              implementation: app.sh
              inputs:
                pw: { $get_input: db_password }
                tok: { $get_attribute: [ db, token ] }
                dsn: { $get_property: [ SELF, dsn ] }
  outputs:
    password: { value: { $get_input: db_password } }
    dsn: { value: { $get_property: [ app, dsn ] } }
    token: { value: { $get_attribute: [ db, token ] } }
    url: { value: { $get_property: [ app, url ] } }
    link: { value: { $get_attribute: [ app, RELATIONSHIP, db, link_token ] } }
`,
		"bad.yaml": `tosca_definitions_version: tosca_2_0
service_template:
  inputs:
    pin: { type: integer, metadata: { sensitive: true }, default: ` + secretValue + ` }
`,
	},
}

// secretForms lists the secrets and the forms a leak would take: as
// written, base64 (standard and URL alphabets, padded or not), URL and
// JSON escapes.
func secretForms() []string {
	var out []string
	for _, s := range []string{secretValue, secretToken, secretLink} {
		out = append(out, s, url.QueryEscape(s))
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			out = append(out, enc.EncodeToString([]byte(s)))
		}
		j, _ := json.Marshal(s)
		out = append(out, strings.Trim(string(j), `"`))
	}
	return out
}

// TestSecretsNeverShown runs every command and output form over a TOSCA
// 1.3 and a TOSCA 2.0 template that hold the same secrets, and checks that
// none of the bytes they print or write (diagnostics in every format,
// plans as text, JSON, markdown and plan file, apply's text and JSON
// events, show, output, state, graph, refresh, destroy, and sync's log
// and API)
// holds a secret in any form. Only the state file holds the secrets: apply
// needs them again.
func TestSecretsNeverShown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs xosplan some sixty times")
	}
	for _, version := range []string{"tosca13", "tosca20"} {
		t.Run(version, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"db.sh": secretDBScript, "app.sh": secretAppScript, "link.sh": secretLinkScript}
			for name, body := range secretStacks[version] {
				files[name] = body
			}
			for name, body := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			env := []string{"NO_COLOR=1"}
			var shown bytes.Buffer
			run := func(want int, args ...string) string {
				t.Helper()
				code, out := runXosplan(t, dir, env, args...)
				if code != want {
					t.Errorf("xosplan %s: exit status %d, want %d:\n%s", strings.Join(args, " "), code, want, out)
				}
				shown.WriteString(out)
				return out
			}
			for _, format := range []string{"text", "json", "sarif", "github"} {
				run(0, "validate", "--format", format, "stack.yaml")
				// A sensitive input's value that is not the integer
				// it must be: from the command line, and written in
				// the template.
				out := run(1, "validate", "--format", format, "--var", "pin="+secretValue, "stack.yaml")
				if !strings.Contains(out, "integer") {
					t.Errorf("validate --format %s says nothing of the integer pin must be:\n%s", format, out)
				}
				run(1, "validate", "--format", format, "bad.yaml")
			}
			run(1, "plan", "bad.yaml")
			run(1, "plan", "--json", "bad.yaml")
			run(0, "plan", "stack.yaml")
			run(0, "plan", "--json", "stack.yaml")
			run(0, "plan", "--out", "plan.bin", "--json-out", "plan.json", "--markdown-out", "plan.md", "stack.yaml")
			run(0, "show", "plan.bin")
			run(0, "show", "--json", "plan.bin")
			run(0, "graph", "stack.yaml")
			run(0, "graph", "--format", "mermaid", "stack.yaml")
			applied := run(0, "apply", "plan.bin")
			if !strings.Contains(applied, "app got (sensitive value)") {
				t.Errorf("apply does not show app's redacted output:\n%s", applied)
			}
			run(0, "apply", "--json", "--auto-approve", "--state", "events.json", "stack.yaml")
			run(0, "plan", "stack.yaml")
			run(0, "plan", "--var", "db_password=an0ther-secret-7", "--json-out", "update.json", "--markdown-out", "update.md", "stack.yaml")
			run(0, "refresh", "stack.yaml")
			run(0, "refresh", "--json", "stack.yaml")
			run(0, "show")
			run(0, "show", "--json")
			run(0, "output")
			run(0, "output", "--json")
			for _, name := range []string{"password", "dsn", "token", "url", "link"} {
				run(1, "output", name)
				run(1, "output", "--raw", name)
				run(1, "output", "--json", name)
			}
			run(0, "state", "list")
			for _, addr := range []string{"db", "app"} {
				run(0, "state", "show", addr)
			}
			run(0, "plan", "--destroy", "--json-out", "destroy.json", "stack.yaml")
			run(0, "destroy", "--auto-approve", "--state", "events.json", "stack.yaml")
			for _, name := range []string{"plan.bin", "plan.json", "plan.md", "update.json", "update.md", "destroy.json"} {
				shown.Write(mustRead(t, filepath.Join(dir, name)))
			}
			shown.WriteString(syncShows(t, files))
			for _, form := range append(secretForms(), "an0ther-secret-7") {
				if i := strings.Index(shown.String(), form); i >= 0 {
					t.Errorf("%q is shown: …%s…", form, shown.String()[max(0, i-200):min(shown.Len(), i+len(form)+50)])
				}
			}
			// The state needs the secrets to apply again.
			if !bytes.Contains(mustRead(t, filepath.Join(dir, "xosplan.state.json")), []byte(secretToken)) {
				t.Errorf("the state does not record the token db's create reported")
			}
			if !bytes.Contains(mustRead(t, filepath.Join(dir, "xosplan.state.json")), []byte(secretLink)) {
				t.Errorf("the state does not record the link token app's relationship reported")
			}
		})
	}
}

// syncShows runs `xosplan sync` on a fresh copy of files until it has
// applied both resources and returns all it shows: its JSON log, and what
// its API answers for the status, each resource, the event stream and the
// metrics.
func syncShows(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log, p := startSync(t, dir, []string{"NO_COLOR=1"}, "--listen", "127.0.0.1:0", "--listen-file", "addr", "--log-format", "json")
	var addr string
	testutil.WaitFor(t, 60*time.Second, "sync to listen", func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "addr"))
		addr = strings.TrimSpace(string(b))
		return err == nil && addr != ""
	})
	get := func(path string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		// The event stream does not end: what came within the
		// deadline is enough.
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	testutil.WaitFor(t, 60*time.Second, "sync to apply db and app", func() bool {
		var st struct {
			Resources []struct {
				Status string `json:"status"`
			} `json:"resources"`
		}
		if json.Unmarshal([]byte(get("/v1/status")), &st) != nil || len(st.Resources) != 2 {
			return false
		}
		for _, r := range st.Resources {
			if r.Status != "active" {
				return false
			}
		}
		return true
	})
	var b strings.Builder
	for _, path := range []string{"/v1/status", "/v1/resources/db", "/v1/resources/app", "/v1/events", "/metrics"} {
		b.WriteString(get(path))
	}
	p.terminate(t)
	b.WriteString(log.String())
	return b.String()
}
