package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/xosplan/xosplan/internal/testutil"
)

// confinedTree is a repository (.git at its top) holding a workspace
// folder ws and, beside it, a folder outside the workspace whose secret
// file has a problem of its own: a compile that read it would report it,
// quoting nothing but naming its type.
func confinedTree(t *testing.T) string {
	t.Helper()
	const types = "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  demo.%s:\n    derived_from: tosca.nodes.Root\n"
	return testutil.Tree(t, map[string]string{
		".git/HEAD":           "ref: refs/heads/main\n",
		"ws/types.yaml":       strings.ReplaceAll(types, "%s", "Local"),
		"ws/main.yaml":        "tosca_definitions_version: tosca_simple_yaml_1_3\nimports:\n  - types.yaml\ntopology_template:\n  node_templates:\n    a:\n      type: demo.Local\n",
		"ws/escape.yaml":      "tosca_definitions_version: tosca_simple_yaml_1_3\nimports:\n  - ../outside/secret.yaml\ntopology_template:\n  node_templates:\n    a:\n      type: demo.Secret\n",
		"outside/secret.yaml": "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  demo.Secret:\n    derived_from: tosca.nodes.Nope\n",
		"outside/doc.yaml":    "tosca_definitions_version: tosca_simple_yaml_1_3\nimports:\n  - secret.yaml\ntopology_template:\n  node_templates:\n    a:\n      type: demo.Secret\n    b:\n      type: tosca.nodes.Compute\n    c:\n      type: tosca.nodes.Typo\n",
	})
}

// codesOf lists "line:code message" of published diagnostics.
func codesOf(p published) []string {
	var out []string
	for _, d := range p.Diagnostics {
		b, _ := json.Marshal(d)
		var v struct {
			Range   protocol.Range `json:"range"`
			Code    string         `json:"code"`
			Message string         `json:"message"`
		}
		_ = json.Unmarshal(b, &v)
		out = append(out, strconv.Itoa(int(v.Range.Start.Line)+1)+":"+v.Code+" "+v.Message)
	}
	slices.Sort(out)
	return out
}

// TestWorkspaceConfinesDocuments: with workspace folders announced, a
// document inside one is confined to it, even when the repository holding
// it is larger; a document outside every folder is compiled from its own
// text alone: its imports of local files are refused and nothing of its
// siblings is reported; adding its folder to the workspace lets it read
// them. Each way of announcing the workspace (workspaceFolders, rootUri,
// rootPath) counts.
func TestWorkspaceConfinesDocuments(t *testing.T) {
	dir := confinedTree(t)
	ws := filepath.Join(dir, "ws")
	wsURI := uriOf(ws)
	rootPath := ws
	for _, tc := range []struct {
		name string
		init protocol.InitializeParams
	}{
		{"workspaceFolders", protocol.InitializeParams{WorkspaceFolders: []protocol.WorkspaceFolder{{URI: wsURI, Name: "ws"}}}},
		{"rootUri", protocol.InitializeParams{RootURI: &wsURI}},
		{"rootPath", protocol.InitializeParams{RootPath: &rootPath}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startServer(t, Options{})
			var res protocol.InitializeResult
			c.mustCall(protocol.MethodInitialize, tc.init, &res)
			c.notify(protocol.MethodInitialized, protocol.InitializedParams{})
			if w := res.Capabilities.Workspace; w == nil || w.WorkspaceFolders == nil || w.WorkspaceFolders.Supported == nil || !*w.WorkspaceFolders.Supported {
				t.Errorf("workspace folders not announced as supported: %+v", res.Capabilities.Workspace)
			}

			// Inside the workspace: its files are read.
			main := c.open(filepath.Join(ws, "main.yaml"), readText(t, filepath.Join(ws, "main.yaml")))
			if got := codesOf(c.diagnosticsFor(main)); len(got) != 0 {
				t.Errorf("main.yaml: %q", got)
			}
			// Inside, importing beyond the workspace folder (but inside
			// the repository): refused.
			escape := c.open(filepath.Join(ws, "escape.yaml"), readText(t, filepath.Join(ws, "escape.yaml")))
			got := codesOf(c.diagnosticsFor(escape))
			if len(got) == 0 || !strings.HasPrefix(got[0], "3:tosca.import_outside_root ") || strings.Contains(strings.Join(got, "\n"), "Nope") {
				t.Errorf("escape.yaml: %q, want the import refused and nothing of secret.yaml", got)
			}

			// Outside every folder: its own text alone.
			docPath := filepath.Join(dir, "outside", "doc.yaml")
			doc := c.open(docPath, readText(t, docPath))
			got = codesOf(c.diagnosticsFor(doc))
			want := []string{
				`11:tosca.unknown_type unknown node type "tosca.nodes.Typo"`,
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], "3:tosca.import_outside_root ") ||
				!strings.Contains(got[0], "outside the editor's workspace folders") || strings.Contains(got[0], "Nope") {
				t.Errorf("doc.yaml outside the workspace: %q", got)
			}

			// The secret file open too changes nothing: the other
			// buffers are not read either.
			secret := filepath.Join(dir, "outside", "secret.yaml")
			c.open(secret, readText(t, secret))
			c.replace(doc, 2, readText(t, docPath)+"\n")
			if again := codesOf(c.diagnosticsFor(doc)); !slices.Equal(again, got) {
				t.Errorf("doc.yaml with secret.yaml open: %q", again)
			}

			// Its folder joins the workspace: it reads its siblings.
			c.notify(protocol.MethodWorkspaceDidChangeWorkspaceFolders, protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
				Added: []protocol.WorkspaceFolder{{URI: uriOf(filepath.Join(dir, "outside")), Name: "outside"}}}})
			for range 3 {
				got = codesOf(c.diagnosticsFor(doc))
				if slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "import_outside_root") }) {
					continue // a compile from before the change
				}
				break
			}
			if slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "import_outside_root") }) || !slices.Contains(got, want[0]) {
				t.Errorf("doc.yaml once its folder is in the workspace: %q", got)
			}
		})
	}
}

// TestNoWorkspaceKeepsTheDocumentsRoot: a client that announces no
// workspace (a file opened alone) has each document confined as before,
// to the repository holding it.
func TestNoWorkspaceKeepsTheDocumentsRoot(t *testing.T) {
	dir := confinedTree(t)
	c := startServer(t, Options{})
	c.initialize()
	escape := c.open(filepath.Join(dir, "ws", "escape.yaml"), readText(t, filepath.Join(dir, "ws", "escape.yaml")))
	if got := codesOf(c.diagnosticsFor(escape)); slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "import_outside_root") }) {
		t.Errorf("escape.yaml without a workspace: %q, want its repository readable", got)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
