package lsp

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/xosplan/xosplan/internal/testutil"
)

// copyTree copies the folder src to a temporary folder and returns it,
// so that the files' URIs do not depend on where the module lies.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// spot finds a probe by the text at it: the n-th (1-based) line of src
// that holds needle, at the needle's start plus off characters (the
// files are ASCII, so characters are bytes).
func spot(t *testing.T, src, needle string, n, off int) (line, char int) {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if at := strings.Index(l, needle); at >= 0 {
			if n--; n == 0 {
				return i, at + off
			}
		}
	}
	t.Fatalf("%q is not in the text %d times", needle, n)
	return 0, 0
}

// probeAt is a probe found by spot.
func probeAt(t *testing.T, src, what, needle string, n, off int) probe {
	t.Helper()
	line, char := spot(t, src, needle, n, off)
	return probe{what, line, char}
}

// TestProtocolSession2 drives a session on a TOSCA 2.0 service template
// (testdata/workspace2: a local type file, a profile found on the
// profile search path and imported with a namespace, the embedded
// simple profile, a custom function) through the protocol — hover,
// definition, references, completion, documentSymbol and semantic
// tokens — and compares the answers with testdata/session2.golden.json.
func TestProtocolSession2(t *testing.T) {
	dir := copyTree(t, "testdata/workspace2")
	c := startServer(t, Options{ProfilePath: []string{filepath.Join(dir, "profiles")}})
	tr := &transcript{dir: dir}
	c.initialize()
	data, err := os.ReadFile(filepath.Join(dir, "service.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	service := c.open(filepath.Join(dir, "service.yaml"), src)
	tr.add("diagnostics service.yaml", c.diagnosticsFor(service).Diagnostics)

	p := func(what, needle string, n, off int) probe { return probeAt(t, src, what, needle, n, off) }
	ask(c, tr, protocol.MethodTextDocumentHover, service, []probe{
		p("hover type name example.Web (a local type file)", "type: example.Web", 1, 8),
		p("hover namespaced type name shop:Store (a profile on the search path)", "type: shop:Store", 1, 12),
		p("hover type name Compute (the embedded simple profile)", "type: Compute", 1, 7),
		p("hover property port of a template", "port: { $get_input", 1, 1),
		p("hover requirement store", "- store: db", 1, 3),
		p("hover function call $get_input", "port: { $get_input", 1, 9),
		p("hover function call $concat", "$concat", 1, 2),
		p("hover custom function call $double", "$double", 1, 2),
		p("hover input definition port", "    port:", 1, 5),
		p("hover profile import com.example.shop:1.0", "profile: com.example.shop", 1, 12),
		p("hover output value $get_property", "$get_property", 1, 2),
	}, same[*protocol.Hover])
	ask(c, tr, protocol.MethodTextDocumentDefinition, service, []probe{
		p("definition of type example.Web (in types.yaml)", "type: example.Web", 1, 8),
		p("definition of type shop:Store (in the profile)", "type: shop:Store", 1, 12),
		p("definition of requirement target db", "- store: db", 1, 10),
		p("definition of import url types.yaml", "url: types.yaml", 1, 6),
		p("definition of profile import com.example.shop:1.0 (its file)", "profile: com.example.shop", 1, 12),
		p("definition of $get_input's input", "port: { $get_input: port }", 1, 21),
		p("definition of a template named by $get_property", "$get_property: [ web", 1, 18),
		p("definition of custom function $double", "$double", 1, 2),
		p("definition of an embedded type (none)", "type: Compute", 1, 7),
	}, same[any])
	for _, r := range []struct {
		what   string
		at     probe
		withIt bool
	}{
		{"references of template host, with its declaration", p("", "    host:", 1, 5), true},
		{"references of input port", p("", "    port:", 1, 5), false},
		{"references of type example.Web", p("", "type: example.Web", 1, 8), false},
	} {
		var refs []protocol.Location
		c.mustCall(protocol.MethodTextDocumentReferences, protocol.ReferenceParams{TextDocumentPositionParams: pos(service, r.at.line, r.at.char), Context: protocol.ReferenceContext{IncludeDeclaration: r.withIt}}, &refs)
		tr.add(r.what, refs)
	}
	var symbols []protocol.DocumentSymbol
	c.mustCall(protocol.MethodTextDocumentDocumentSymbol, protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: service}}, &symbols)
	tr.add("documentSymbol service.yaml", symbols)
	var tokens protocol.SemanticTokens
	c.mustCall(protocol.MethodTextDocumentSemanticTokensFull, protocol.SemanticTokensParams{TextDocument: protocol.TextDocumentIdentifier{URI: service}}, &tokens)
	tr.add("semanticTokens service.yaml (decoded: line:char length type modifiers)", decodeTokens(tokens.Data))

	// Edits: things being typed in web, an output being written; the
	// file still compiles.
	edited := strings.Replace(src, "        workers: { $double: [ 4 ] }\n", "        workers: { $double: [ 4 ] }\n        \n", 1)
	edited = strings.Replace(edited, "        - store: db\n", "        - store: db\n        - host: \n      \n", 1)
	edited = strings.Replace(edited, "    host:\n      type: Compute\n", "    host:\n      type: Compute\n      properties: { }\n", 1)
	edited = strings.Replace(edited, "      value: { $get_property: [ web, url ] }\n", "      value: { $get_property: [ web, url ] }\n    count:\n      value: { $get_input: port }\n", 1)
	c.replace(service, 2, edited)
	tr.add("diagnostics after didChange", c.diagnosticsFor(service).Diagnostics)
	e := func(what, needle string, n, off int) probe { return probeAt(t, edited, what, needle, n, off) }
	// blank is the probe at the indentation of the line after the n-th
	// that holds after.
	blank := func(what string, after string, n, indent int) probe {
		line, _ := spot(t, edited, after, n, 0)
		return probe{what, line + 1, indent}
	}
	ask(c, tr, protocol.MethodTextDocumentCompletion, service, []probe{
		{"completion of top-level keynames (TOSCA 2.0's)", 1, 0},
		e("completion of service_template keynames", "  inputs:", 1, 2),
		blank("completion of keynames in a node template", "        - host: ", 4, 6),
		blank("completion of requirement names", "        - store: db", 1, 10),
		blank("completion of a template's property names", "        workers: { $double", 1, 8),
		e("completion of requirement targets", "        - host: ", 4, 16),
		e("completion of type names after type: (namespaced ones included)", "type: shop:Store", 1, 6),
		e("completion of input names in $get_input", "value: { $get_input: port }", 1, 21),
		e("completion of template names in $get_property", "value: { $get_property: [ web", 1, 26),
		e("completion of function names after { $", "url: { $concat", 1, 8),
	}, completionLabels)
	var list protocol.CompletionList
	line, char := spot(t, edited, "type: example.Web", 1, 6)
	c.mustCall(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: pos(service, line, char)}, &list)
	if got := labels(list); !contains(got, "shop:Store") || !contains(got, "example.Web") || contains(got, "Store") {
		t.Errorf("completion after type: offers %v; want shop:Store and example.Web, and no Store (only visible as shop:Store)", got)
	}
	testutil.Golden(t, "testdata/session2.golden.json", tr.bytes(t))
}

// TestBrokenBufferKeepsTheLastGoodNames proves that while a buffer does
// not parse (an unclosed { being typed), completion and hover answer
// from the last compile of the document that did, in TOSCA 1.3 and 2.0.
func TestBrokenBufferKeepsTheLastGoodNames(t *testing.T) {
	for _, tc := range []struct {
		name, folder, file string
		// broken is the text with an unclosed flow map, typed on the
		// line of typing, after whose end completion is asked.
		typing, broken string
		wantTargets    []string
		hover          string
		hoverWant      string
	}{
		{"TOSCA 1.3", "testdata/workspace", "service.yaml", "        - database: db\n", "        - database: { node: \n",
			[]string{"app", "db", "dbms", "server"}, "type: example.App", "**node type** `example.App`"},
		{"TOSCA 2.0", "testdata/workspace2", "service.yaml", "        - store: db\n", "        - store: { node: \n",
			[]string{"db", "dbms", "host", "web"}, "type: example.Web", "**node type** `example.Web`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyTree(t, tc.folder)
			c := startServer(t, Options{ProfilePath: []string{filepath.Join(dir, "profiles")}})
			c.initialize()
			data, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			uri := c.open(filepath.Join(dir, tc.file), string(data))
			if d := c.diagnosticsFor(uri); len(d.Diagnostics) != 0 {
				t.Fatalf("the file has problems: %v", d.Diagnostics)
			}
			broken := strings.Replace(string(data), tc.typing, tc.broken, 1)
			c.replace(uri, 2, broken)
			if d := c.diagnosticsFor(uri); !strings.Contains(fmt.Sprint(d.Diagnostics), "yaml.syntax") {
				t.Fatalf("the broken buffer compiles: %v", d.Diagnostics)
			}
			line, char := spot(t, broken, strings.TrimSuffix(tc.broken, "\n"), 1, len(tc.broken)-1)
			var list protocol.CompletionList
			c.mustCall(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: pos(uri, line, char)}, &list)
			if got := labels(list); !slices.Equal(got, tc.wantTargets) {
				t.Errorf("completion of the requirement's node in the broken buffer: %v, want %v", got, tc.wantTargets)
			}
			line, char = spot(t, broken, tc.hover, 1, 8)
			var h *protocol.Hover
			c.mustCall(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: pos(uri, line, char)}, &h)
			if h == nil || !strings.Contains(fmt.Sprint(h.Contents), tc.hoverWant) {
				t.Errorf("hover of the type in the broken buffer: %v, want %q", h, tc.hoverWant)
			}
		})
	}
}
