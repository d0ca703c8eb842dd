package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// genTemplate writes a template of n node templates (a tenth of them
// hosts), in flow style as pkg/tosca's compile benchmarks do; every app
// reads an input and depends on the previous app.
func genTemplate(n, port int) string {
	var b strings.Builder
	b.WriteString(`tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  bench.App:
    derived_from: tosca.nodes.SoftwareComponent
    properties:
      port:
        type: integer
        constraints:
          - in_range: [ 1, 65535 ]
      mode:
        type: string
    requirements:
      - backend:
          capability: tosca.capabilities.Node
          relationship: tosca.relationships.DependsOn
          occurrences: [ 0, 1 ]
topology_template:
  inputs:
    mode:
      type: string
      default: fast
  node_templates:
`)
	hosts := max(n/10, 1)
	for i := range hosts {
		fmt.Fprintf(&b, "    host%d: {type: tosca.nodes.Compute}\n", i)
	}
	for i := range n - hosts {
		fmt.Fprintf(&b, "    app%d: {type: bench.App, properties: {port: %d, mode: {get_input: mode}}, requirements: [{host: host%d}", i, port, i%hosts)
		if i > 0 {
			fmt.Fprintf(&b, ", {backend: app%d}", i-1)
		}
		b.WriteString("]}\n")
	}
	// A template being written, in block style, for completion.
	b.WriteString("    last:\n      type: tosca.nodes.SoftwareComponent\n      requirements:\n        - host: \n")
	return b.String()
}

// benchSession opens a generated template of n nodes and waits for its
// first diagnostics.
func benchSession(b *testing.B, n int) (*client, protocol.DocumentUri) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.yaml")
	text := genTemplate(n, 80)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	c := startServer(b, Options{Debounce: time.Millisecond})
	c.initialize()
	uri := c.open(path, text)
	if d := c.diagnosticsFor(uri); len(d.Diagnostics) != 0 {
		b.Fatalf("the generated template has problems: %v", d.Diagnostics)
	}
	return c, uri
}

// BenchmarkLSPDiagnostics10k measures a change to a 10,000-node template
// until its diagnostics are published: each change makes one port
// invalid or valid again, as typing does. The debounce is 1 ms here; an
// editor waits Options.Debounce (150 ms by default) more.
func BenchmarkLSPDiagnostics10k(b *testing.B) {
	c, uri := benchSession(b, 10_000)
	valid := genTemplate(10_000, 80)
	broken := strings.Replace(valid, "app5: {type: bench.App, properties: {port: 80,", "app5: {type: bench.App, properties: {port: 70000,", 1)
	texts := [2]string{broken, valid}
	version := protocol.Integer(1)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		version++
		c.notify(protocol.MethodTextDocumentDidChange, protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: version},
			ContentChanges: []any{protocol.TextDocumentContentChangeEventWhole{Text: texts[i%2]}}})
		d := c.diagnosticsFor(uri)
		if (i%2 == 0) != (len(d.Diagnostics) > 0) {
			b.Fatalf("change %d: %d diagnostics", i, len(d.Diagnostics))
		}
	}
}

// BenchmarkLSPHover10k measures a hover on a function call of the last
// template of a 10,000-node template.
func BenchmarkLSPHover10k(b *testing.B) {
	c, uri := benchSession(b, 10_000)
	lines := strings.Split(genTemplate(10_000, 80), "\n")
	line := len(lines) - 6 // the last flow-style app
	char := strings.Index(lines[line], "get_input") + 2
	b.ResetTimer()
	for b.Loop() {
		var h *protocol.Hover
		c.mustCall(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: pos(uri, line, char)}, &h)
		if h == nil {
			b.Fatal("no hover")
		}
	}
}

// BenchmarkLSPCompletion10k measures completing a requirement target in a
// 10,000-node template (10,000 names offered).
func BenchmarkLSPCompletion10k(b *testing.B) {
	c, uri := benchSession(b, 10_000)
	line := strings.Count(genTemplate(10_000, 80), "\n") - 1
	b.ResetTimer()
	for b.Loop() {
		var list protocol.CompletionList
		c.mustCall(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: pos(uri, line, 16)}, &list)
		if len(list.Items) < 10_000 {
			b.Fatalf("%d names offered", len(list.Items))
		}
	}
}
