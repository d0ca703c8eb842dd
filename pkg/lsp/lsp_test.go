package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/xosplan/xosplan/internal/testutil"
)

// client is the editor's side of a session with Serve over a pipe.
type client struct {
	t     testing.TB
	conn  *jsonrpc2.Conn
	diags chan published
	early []published
	logs  chan string
	done  chan error
}

// published is a publishDiagnostics notification as the client reads
// it: the diagnostics as plain JSON values (glsp's IntegerOrString does
// not decode a code).
type published struct {
	URI         string `json:"uri"`
	Version     int    `json:"version"`
	Diagnostics []any  `json:"diagnostics"`
}

// waitLimit bounds every wait of a test for the server: a hang fails the
// test instead of the run.
const waitLimit = 20 * time.Second

// startServer runs Serve on one end of a pipe and returns a client on
// the other; the server is stopped and joined when the test ends.
func startServer(t testing.TB, opts Options) *client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serverSide, clientSide := net.Pipe()
	c := &client{t: t, diags: make(chan published, 64), logs: make(chan string, 64), done: make(chan error, 1)}
	if opts.Debounce == 0 {
		opts.Debounce = time.Millisecond
	}
	go func() { c.done <- Serve(ctx, serverSide, opts) }()
	c.conn = jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(clientSide, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			switch req.Method {
			case protocol.ServerTextDocumentPublishDiagnostics:
				var p published
				if err := json.Unmarshal(*req.Params, &p); err == nil {
					c.diags <- p
				}
			case string(protocol.ServerClientRegisterCapability):
				var p protocol.RegistrationParams
				if err := json.Unmarshal(*req.Params, &p); err == nil && len(p.Registrations) > 0 {
					select {
					case c.logs <- "register " + p.Registrations[0].Method:
					default:
					}
				}
			case protocol.ServerWindowLogMessage:
				var p protocol.LogMessageParams
				if err := json.Unmarshal(*req.Params, &p); err == nil {
					select {
					case c.logs <- p.Message:
					default:
					}
				}
			}
			return nil, nil
		}))
	t.Cleanup(func() {
		cancel()
		c.conn.Close()
		select {
		case <-c.done:
		case <-time.After(waitLimit):
			t.Error("the server did not stop")
		}
	})
	return c
}

func (c *client) call(method string, params, result any) error {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	return c.conn.Call(ctx, method, params, result)
}

func (c *client) mustCall(method string, params, result any) {
	c.t.Helper()
	if err := c.call(method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// diagnosticsFor waits for the next diagnostics published for uri;
// those of other documents are kept for their turn.
func (c *client) diagnosticsFor(uri string) published {
	c.t.Helper()
	for i, p := range c.early {
		if p.URI == uri {
			c.early = append(c.early[:i], c.early[i+1:]...)
			return p
		}
	}
	timeout := time.After(waitLimit)
	for {
		select {
		case p := <-c.diags:
			if p.URI == uri {
				return p
			}
			c.early = append(c.early, p)
		case <-timeout:
			c.t.Fatalf("no diagnostics for %s", uri)
		}
	}
}

func (c *client) initialize() protocol.InitializeResult {
	c.t.Helper()
	var res protocol.InitializeResult
	c.mustCall(protocol.MethodInitialize, protocol.InitializeParams{}, &res)
	c.notify(protocol.MethodInitialized, protocol.InitializedParams{})
	return res
}

// replace sends a change of the whole text of the document uri.
func (c *client) replace(uri string, version int, text string) {
	c.t.Helper()
	c.notify(protocol.MethodTextDocumentDidChange, protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: protocol.Integer(version)},
		ContentChanges: []any{protocol.TextDocumentContentChangeEventWhole{Text: text}}})
}

func (c *client) open(path string, text string) protocol.DocumentUri {
	c.t.Helper()
	uri := uriOf(path)
	c.notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "yaml", Version: 1, Text: text}})
	return uri
}

func pos(uri string, line, char int) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(char)}}
}

// workspace copies testdata/workspace to a temporary folder, so that the
// files' URIs do not depend on where the module lies.
func workspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir("testdata/workspace")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata/workspace", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// transcript records what a session answered, for the golden file.
type transcript struct {
	dir     string
	entries []entry
}

type entry struct {
	Step   string `json:"step"`
	Result any    `json:"result"`
}

func (tr *transcript) add(step string, result any) {
	tr.entries = append(tr.entries, entry{step, result})
}

// bytes renders the transcript with the workspace folder as WORKSPACE.
func (tr *transcript) bytes(t *testing.T) []byte {
	t.Helper()
	data, err := json.MarshalIndent(tr.entries, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte(uriOf(tr.dir)), []byte("file:///WORKSPACE"))
	data = bytes.ReplaceAll(data, []byte(tr.dir), []byte("WORKSPACE"))
	return append(data, '\n')
}

// probe is a position to ask about, and what the transcript calls it.
type probe struct {
	what       string
	line, char int
}

// ask sends a position request (hover, definition, completion…) for each
// probe of the document uri and records the answers, as show renders
// them, in the transcript.
func ask[R any](c *client, tr *transcript, method, uri string, probes []probe, show func(R) any) {
	c.t.Helper()
	for _, p := range probes {
		var r R
		c.mustCall(method, pos(uri, p.line, p.char), &r)
		tr.add(p.what, show(r))
	}
}

func same[R any](r R) any { return r }

// completionLabels shows a completion answer by its labels.
func completionLabels(list protocol.CompletionList) any { return labels(list) }

func labels(list protocol.CompletionList) []string {
	out := make([]string, 0, len(list.Items))
	for _, it := range list.Items {
		out = append(out, it.Label)
	}
	return out
}

// TestProtocolSession drives a whole session through the protocol —
// initialize, didOpen, diagnostics, hover, definition, references,
// completion, documentSymbol, didChange, shutdown and exit — and compares
// what the server answered with testdata/session.golden.json.
func TestProtocolSession(t *testing.T) {
	dir := workspace(t)
	c := startServer(t, Options{})
	tr := &transcript{dir: dir}
	init := c.initialize()
	tr.add("initialize", init.Capabilities)

	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	service := c.open(filepath.Join(dir, "service.yaml"), read("service.yaml"))
	tr.add("diagnostics service.yaml", c.diagnosticsFor(service).Diagnostics)
	cycle := c.open(filepath.Join(dir, "cycle.yaml"), read("cycle.yaml"))
	tr.add("diagnostics cycle.yaml (a cycle with its hops, an unknown type)", c.diagnosticsFor(cycle).Diagnostics)

	ask(c, tr, protocol.MethodTextDocumentHover, service, []probe{
		{"hover type name example.App", 25, 15},
		{"hover normative type name tosca.nodes.Compute", 12, 20},
		{"hover property port of a template", 27, 9},
		{"hover function get_input", 21, 18},
		{"hover function get_property", 33, 18},
		{"hover requirement database", 30, 12},
		{"hover input definition db_port", 7, 6},
	}, same[*protocol.Hover])
	ask(c, tr, protocol.MethodTextDocumentDefinition, service, []probe{
		{"definition of type example.App (in types.yaml)", 25, 15},
		{"definition of requirement target db", 30, 21},
		{"definition of import types.yaml", 3, 6},
		{"definition of get_input's input", 21, 28},
		{"definition of a template named by get_property", 33, 32},
		{"definition of an embedded type (none)", 12, 20},
	}, same[any])
	var serverRefs, inputRefs []protocol.Location
	c.mustCall(protocol.MethodTextDocumentReferences, protocol.ReferenceParams{TextDocumentPositionParams: pos(service, 11, 6), Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &serverRefs)
	tr.add("references of template server, with its declaration", serverRefs)
	c.mustCall(protocol.MethodTextDocumentReferences, protocol.ReferenceParams{TextDocumentPositionParams: pos(service, 7, 6)}, &inputRefs)
	tr.add("references of input db_port", inputRefs)

	var symbols []protocol.DocumentSymbol
	c.mustCall(protocol.MethodTextDocumentDocumentSymbol, protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: service}}, &symbols)
	tr.add("documentSymbol service.yaml", symbols)
	var tokens protocol.SemanticTokens
	c.mustCall(protocol.MethodTextDocumentSemanticTokensFull, protocol.SemanticTokensParams{TextDocument: protocol.TextDocumentIdentifier{URI: service}}, &tokens)
	tr.add("semanticTokens service.yaml (decoded: line:char length type modifiers)", decodeTokens(tokens.Data))

	// Edits: the requirement now names a template that does not exist,
	// and a property is being typed in app.
	edited := strings.Replace(read("service.yaml"), "- database: db\n", "- database: dbx\n", 1)
	edited = strings.Replace(edited, "        port: 9090\n", "        port: 9090\n        \n", 1)
	c.replace(service, 2, edited)
	tr.add("diagnostics after didChange (unsaved buffer)", c.diagnosticsFor(service).Diagnostics)

	ask(c, tr, protocol.MethodTextDocumentCompletion, service, []probe{
		{"completion of a template's property names", 28, 8},
		{"completion of keynames in a node template", 26, 6},
		{"completion of requirement targets", 31, 21},
		{"completion of input names in get_input", 21, 28},
		{"completion of top-level keynames", 1, 0},
		{"completion of an input's type (primitives, then data types)", 8, 12},
	}, completionLabels)
	var list protocol.CompletionList
	c.mustCall(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: pos(service, 25, 14)}, &list)
	got := labels(list)
	if len(got) < 10 || !contains(got, "example.App") || !contains(got, "tosca.nodes.Compute") {
		t.Errorf("completion after type: offers %d names, want the node types example.App and tosca.nodes.Compute among them", len(got))
	}

	// A change to an open imported file recompiles the template that
	// imports it, from the unsaved buffer.
	types := c.open(filepath.Join(dir, "types.yaml"), read("types.yaml"))
	c.diagnosticsFor(types)
	c.diagnosticsFor(service)
	c.notify(protocol.MethodTextDocumentDidChange, protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: types}, Version: 2},
		ContentChanges: []any{protocol.TextDocumentContentChangeEvent{Range: &protocol.Range{Start: protocol.Position{Line: 7, Character: 6}, End: protocol.Position{Line: 7, Character: 10}}, Text: "http_port"}}})
	tr.add("diagnostics of types.yaml after an incremental change", c.diagnosticsFor(types).Diagnostics)
	tr.add("diagnostics of service.yaml, which imports it", c.diagnosticsFor(service).Diagnostics)

	c.mustCall(protocol.MethodShutdown, nil, nil)
	c.notify(protocol.MethodExit, nil)
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("Serve after shutdown and exit: %v", err)
		}
		c.done <- err
	case <-time.After(waitLimit):
		t.Fatal("Serve did not return after exit")
	}
	testutil.Golden(t, "testdata/session.golden.json", tr.bytes(t))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestProtocolManifest drives a session on a Tonomi manifest: its
// diagnostics, hover of a component type, definition and references of
// bind() targets and binding ends, completion of component types and pin
// kinds, and its outline, compared with testdata/manifest.golden.json.
func TestProtocolManifest(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/manifests/shop.yml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "shop.yml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, Options{})
	c.initialize()
	tr := &transcript{dir: dir}
	uri := c.open(path, string(data))
	tr.add("diagnostics", c.diagnosticsFor(uri).Diagnostics)
	ask(c, tr, protocol.MethodTextDocumentHover, uri, []probe{
		{"hover component type workflow.Instance", 9, 14},
		{"hover bind() target web#input.size", 3, 20},
	}, same[*protocol.Hover])
	ask(c, tr, protocol.MethodTextDocumentDefinition, uri, []probe{
		{"definition of bind() target web#output.url (the pin)", 5, 20},
		{"definition of binding end db (the component)", 21, 8},
	}, same[any])
	var refs []protocol.Location
	c.mustCall(protocol.MethodTextDocumentReferences, protocol.ReferenceParams{TextDocumentPositionParams: pos(uri, 8, 5), Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &refs)
	tr.add("references of component web", refs)
	ask(c, tr, protocol.MethodTextDocumentCompletion, uri, []probe{
		{"completion of component types", 9, 12},
		{"completion of pin kinds", 12, 16},
		{"completion of component keys", 10, 6},
	}, completionLabels)
	var symbols []protocol.DocumentSymbol
	c.mustCall(protocol.MethodTextDocumentDocumentSymbol, protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}}, &symbols)
	tr.add("documentSymbol", symbols)
	testutil.Golden(t, "testdata/manifest.golden.json", tr.bytes(t))
}

// TestRapidChangesPublishTheLastVersion proves that changes arriving
// while a compile runs stop it, and that the last diagnostics published
// are those of the last version: the first versions have an error, the
// last has none.
func TestRapidChangesPublishTheLastVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.yaml")
	valid := genTemplate(1000, 80)
	c := startServer(t, Options{Debounce: time.Millisecond})
	c.initialize()
	uri := c.open(path, strings.Replace(valid, "port: 80,", "port: 70000,", 1))
	const last = 8
	for v := 2; v <= last; v++ {
		text := strings.Replace(valid, "port: 80,", "port: 7000"+string(rune('0'+v))+",", 1)
		if v == last {
			text = valid
		}
		c.notify(protocol.MethodTextDocumentDidChange, protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: protocol.Integer(v)},
			ContentChanges: []any{protocol.TextDocumentContentChangeEventWhole{Text: text}}})
		time.Sleep(time.Duration(v) * time.Millisecond)
	}
	for {
		p := c.diagnosticsFor(uri)
		if p.Version == last {
			if len(p.Diagnostics) != 0 {
				t.Errorf("the last version has diagnostics: %v", p.Diagnostics)
			}
			break
		}
		if p.Version > last {
			t.Fatalf("version %d published", p.Version)
		}
	}
	select {
	case p := <-c.diags:
		t.Errorf("published after the last version: version %d", p.Version)
	case <-time.After(100 * time.Millisecond):
	}
}

// decodeTokens turns the protocol's relative encoding of semantic tokens
// back into absolute positions, for a golden file a reader can check.
func decodeTokens(data []protocol.UInteger) []string {
	var out []string
	var line, char protocol.UInteger
	for i := 0; i+4 < len(data); i += 5 {
		if data[i] > 0 {
			char = 0
		}
		line += data[i]
		char += data[i+1]
		mod := ""
		if data[i+4] == tokenDeclaration {
			mod = " declaration"
		}
		out = append(out, fmt.Sprintf("%d:%d %d %s%s", line, char, data[i+2], tokenTypes[data[i+3]], mod))
	}
	return out
}

// TestDiskChangeOfAnImportRechecksTheTemplate proves that the server asks
// a client that can watch files to report YAML files changed on disk, and
// that such a change to a file a template imports checks the template
// again.
func TestDiskChangeOfAnImportRechecksTheTemplate(t *testing.T) {
	dir := workspace(t)
	c := startServer(t, Options{})
	var res protocol.InitializeResult
	params := map[string]any{"capabilities": map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}}
	c.mustCall(protocol.MethodInitialize, params, &res)
	c.notify(protocol.MethodInitialized, protocol.InitializedParams{})
	select {
	case got := <-c.logs:
		if got != "register "+protocol.MethodWorkspaceDidChangeWatchedFiles {
			t.Errorf("first message %q, want the registration of file watching", got)
		}
	case <-time.After(waitLimit):
		t.Fatal("no registration of file watching")
	}
	svcPath := filepath.Join(dir, "service.yaml")
	data, err := os.ReadFile(svcPath)
	if err != nil {
		t.Fatal(err)
	}
	uri := c.open(svcPath, string(data))
	if d := c.diagnosticsFor(uri); len(d.Diagnostics) != 0 {
		t.Fatalf("service.yaml: %v", d.Diagnostics)
	}
	typesPath := filepath.Join(dir, "types.yaml")
	types, err := os.ReadFile(typesPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(typesPath, []byte(strings.Replace(string(types), "example.App:", "example.Application:", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	c.notify(protocol.MethodWorkspaceDidChangeWatchedFiles, protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{{URI: uriOf(typesPath), Type: protocol.FileChangeTypeChanged}}})
	d := c.diagnosticsFor(uri)
	if len(d.Diagnostics) == 0 || !strings.Contains(fmt.Sprint(d.Diagnostics), "tosca.unknown_type") {
		t.Errorf("after the import changed on disk: %v", d.Diagnostics)
	}
}
