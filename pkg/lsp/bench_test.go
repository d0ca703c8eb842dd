package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/xosplan/xosplan/internal/testutil"
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
	writeNodes(&b, n, port, "tosca.nodes.Compute", "bench.App", "get_input")
	// A template being written, in block style, for completion.
	b.WriteString("    last:\n      type: tosca.nodes.SoftwareComponent\n      requirements:\n        - host: \n")
	return b.String()
}

// genTemplate2 is genTemplate in TOSCA 2.0, on the embedded simple
// profile, ports validated by a validation clause.
func genTemplate2(n, port int) string {
	var b strings.Builder
	b.WriteString(`tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
node_types:
  App:
    derived_from: SoftwareComponent
    properties:
      port:
        type: integer
        validation: { $and: [ { $greater_or_equal: [ $value, 1 ] }, { $less_or_equal: [ $value, 65535 ] } ] }
      mode:
        type: string
    requirements:
      - backend:
          capability: Node
          relationship: DependsOn
          count_range: [ 0, 1 ]
service_template:
  inputs:
    mode:
      type: string
      default: fast
  node_templates:
`)
	writeNodes(&b, n, port, "Compute", "App", "$get_input")
	return b.String()
}

// writeNodes writes the node templates of genTemplate: n of them, a
// tenth hosts of type host, the rest apps of type app listening on port,
// reading the input mode with getInput and depending on the previous
// one.
func writeNodes(b *strings.Builder, n, port int, host, app, getInput string) {
	hosts := max(n/10, 1)
	for i := range hosts {
		fmt.Fprintf(b, "    host%d: {type: %s}\n", i, host)
	}
	for i := range n - hosts {
		fmt.Fprintf(b, "    app%d: {type: %s, properties: {port: %d, mode: {%s: mode}}, requirements: [{host: host%d}", i, app, port, getInput, i%hosts)
		if i > 0 {
			fmt.Fprintf(b, ", {backend: app%d}", i-1)
		}
		b.WriteString("]}\n")
	}
}

// benchSession opens a template with a server that waits debounce after
// a change, and waits for its first diagnostics.
func benchSession(b *testing.B, text string, debounce time.Duration) (*client, protocol.DocumentUri) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	c := startServer(b, Options{Debounce: debounce})
	c.initialize()
	uri := c.open(path, text)
	if d := c.diagnosticsFor(uri); len(d.Diagnostics) != 0 {
		b.Fatalf("the generated template has problems: %v", d.Diagnostics)
	}
	return c, uri
}

// BenchmarkLSPDiagnostics10k measures what an editor waits from a change
// to a 10,000-node template to its diagnostics, the server's default
// debounce (DefaultDebounce) included: the issue asks for under a second.
// Each change makes one port invalid or valid again, as typing does,
// sent as editors send it (incremental: the range edited, the sync the
// server asks for) and as clients that resend the whole text do (whole),
// to a TOSCA 1.3 template and to a TOSCA 2.0 one (tosca2). cpu-ms/op is
// the CPU the process spent per change, the client's side included.
func BenchmarkLSPDiagnostics10k(b *testing.B) {
	for _, tc := range []struct {
		name  string
		whole bool
		gen   func(n, port int) string
	}{{"incremental", false, genTemplate}, {"whole", true, genTemplate}, {"tosca2/incremental", false, genTemplate2}} {
		b.Run(tc.name, func(b *testing.B) {
			valid := tc.gen(10_000, 80)
			c, uri := benchSession(b, valid, DefaultDebounce)
			const app5 = "app5: {type: "
			lines := strings.Split(valid, "\n")
			line := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, app5) })
			char := strings.Index(lines[line], "port: ") + len("port: ")
			texts := [2]string{strings.Replace(valid, lines[line], lines[line][:char]+"70000"+lines[line][char+2:], 1), valid}
			ports := [2]string{"70000", "80"}
			version := protocol.Integer(1)
			cpu := testutil.CPUTime()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				version++
				change := any(protocol.TextDocumentContentChangeEventWhole{Text: texts[i%2]})
				if !tc.whole {
					// The port written before this change is replaced.
					was := ports[(i+1)%2]
					at := protocol.Range{Start: protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(char)},
						End: protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(char + len(was))}}
					change = protocol.TextDocumentContentChangeEvent{Range: &at, Text: ports[i%2]}
				}
				c.notify(protocol.MethodTextDocumentDidChange, protocol.DidChangeTextDocumentParams{
					TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: version},
					ContentChanges: []any{change}})
				d := c.diagnosticsFor(uri)
				if (i%2 == 0) != (len(d.Diagnostics) > 0) {
					b.Fatalf("change %d: %d diagnostics", i, len(d.Diagnostics))
				}
			}
			b.ReportMetric(float64((testutil.CPUTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkLSPHover10k measures a hover on a function call of the last
// template of a 10,000-node template.
func BenchmarkLSPHover10k(b *testing.B) {
	c, uri := benchSession(b, genTemplate(10_000, 80), time.Millisecond)
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
	c, uri := benchSession(b, genTemplate(10_000, 80), time.Millisecond)
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
