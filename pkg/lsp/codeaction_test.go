package lsp

import (
	"path/filepath"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// TestQuickFixReplacesAMisspeltName: a misspelt type and keyname each get
// a diagnostic with its suggestion in data, and a code action at the name
// replaces it with the nearest declared one; applied, neither problem is
// left. A request elsewhere gets none.
func TestQuickFixReplacesAMisspeltName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stack.yaml")
	text := "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    db:\n      type: tosca.nodes.Databse\n      requirments: []\n"
	c := startServer(t, Options{})
	res := c.initialize()
	if res.Capabilities.CodeActionProvider == nil {
		t.Fatal("the server does not announce code actions")
	}
	uri := c.open(path, text)
	got := c.diagnosticsFor(uri)
	if len(got.Diagnostics) != 2 {
		t.Fatalf("diagnostics: %v", got.Diagnostics)
	}
	for _, d := range got.Diagnostics {
		data, _ := d.(map[string]any)["data"].(map[string]any)
		if data["suggestion"] == nil {
			t.Errorf("no suggestion in the diagnostic's data: %v", d)
		}
	}
	fixes := map[int]string{4: "tosca.nodes.Database", 5: "requirements"}
	for line, want := range fixes {
		var actions []protocol.CodeAction
		c.mustCall(protocol.MethodTextDocumentCodeAction, protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: uri},
			Range:        protocol.Range{Start: protocol.Position{Line: protocol.UInteger(line), Character: 14}, End: protocol.Position{Line: protocol.UInteger(line), Character: 14}},
		}, &actions)
		if len(actions) != 1 || actions[0].Kind == nil || *actions[0].Kind != protocol.CodeActionKindQuickFix || actions[0].Edit == nil {
			t.Fatalf("line %d: actions %+v", line+1, actions)
		}
		edits := actions[0].Edit.Changes[uri]
		if len(edits) != 1 || edits[0].NewText != want || int(edits[0].Range.Start.Line) != line {
			t.Fatalf("line %d: edits %+v, want %q", line+1, edits, want)
		}
		lines := strings.Split(text, "\n")
		l := lines[line]
		lines[line] = l[:edits[0].Range.Start.Character] + want + l[edits[0].Range.End.Character:]
		text = strings.Join(lines, "\n")
	}
	c.replace(uri, 2, text)
	for _, d := range c.diagnosticsFor(uri).Diagnostics {
		if code := d.(map[string]any)["code"]; code == "tosca.unknown_type" || code == "tosca.unknown_field" {
			t.Errorf("after both fixes: %v\n%s", d, text)
		}
	}
	var none []protocol.CodeAction
	c.mustCall(protocol.MethodTextDocumentCodeAction, protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri},
		Range:        protocol.Range{Start: protocol.Position{Line: 0}, End: protocol.Position{Line: 0, Character: 3}},
	}, &none)
	if len(none) != 0 {
		t.Errorf("actions where nothing is wrong: %+v", none)
	}
}

// TestPlainYAMLGetsNoDiagnostics: the server judges only TOSCA templates,
// XOS recipes and manifests; a YAML file of another tool, or one with a
// syntax error and no mark of ours, gets an empty list, never "neither a
// TOSCA template nor a manifest". A TOSCA file opened after it still gets
// its diagnostics.
func TestPlainYAMLGetsNoDiagnostics(t *testing.T) {
	dir := t.TempDir()
	c := startServer(t, Options{})
	c.initialize()
	for name, text := range map[string]string{
		"deploy.yaml":   "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n",
		"ci.yml":        "on: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n",
		"playbook.yaml": "- hosts: all\n  tasks:\n    - debug: {msg: hi}\n",
		"broken.yaml":   "key: [unclosed\n",
	} {
		uri := c.open(filepath.Join(dir, name), text)
		if got := c.diagnosticsFor(uri); len(got.Diagnostics) != 0 {
			t.Errorf("%s: %v", name, got.Diagnostics)
		}
	}
	uri := c.open(filepath.Join(dir, "stack.yaml"), "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    db:\n      type: nope\n")
	if got := c.diagnosticsFor(uri); len(got.Diagnostics) != 1 {
		t.Errorf("a TOSCA file: %v", got.Diagnostics)
	}
}
