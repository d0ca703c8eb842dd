package tosca1

import (
	"context"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// TestRenderReportsWhatTheGraphRefuses: render adds resources and edges
// that no template can make the graph refuse, so a refusal is a bug of
// xosplan; it is reported (tosca.internal_error, at the template, the
// requirement or the read) rather than discarded. The compiler's state
// is built by hand here, since no template reaches these refusals. A
// template named twice is the one exception: its duplicate key is the
// error (TestErrorFixtures/duplicate_key), nothing follows from it.
func TestRenderReportsWhatTheGraphRefuses(t *testing.T) {
	at := func(line int) diag.Range {
		return diag.Range{File: "stack.yaml", Start: diag.Pos{Line: line, Column: 7}, End: diag.Pos{Line: line, Column: 12}}
	}
	tpl := func(name string) *nodeTpl {
		return &nodeTpl{name: name, typ: &typeDef{}, key: at(1), path: "topology_template.node_templates." + name}
	}
	web, gone := tpl("web"), tpl("gone")
	tests := []struct {
		name    string
		render  func(c *compiler, g *graph.Graph)
		at      diag.Range
		path    string
		summary string
	}{
		{"a template added twice", func(c *compiler, g *graph.Graph) {
			c.addResource(g, &graph.Resource{Address: "web", Range: at(4)}, web.path)
		}, at(4), web.path, "node template web cannot be compiled into the graph"},
		{"a template named twice in its mapping", func(c *compiler, g *graph.Graph) {
			c.errorf(at(4), web.path, core.CodeDuplicateKey, "duplicate key %q", "web")
			c.addResource(g, &graph.Resource{Address: "web", Range: at(4)}, web.path)
		}, at(4), web.path, "duplicate key"},
		{"a requirement of a template not in the graph", func(c *compiler, g *graph.Graph) {
			web.reqs = []*reqAssign{{name: "host", key: at(6), path: web.path + ".requirements[0].host", target: gone}}
			c.topo = &topology{nodeList: []*nodeTpl{web}}
			c.addEdges(g, nil)
		}, at(6), web.path + ".requirements[0].host", "the dependency of web on gone cannot be kept"},
		{"a read of a template not in the graph", func(c *compiler, g *graph.Graph) {
			c.reads = []readRef{{reader: web, target: gone, where: "properties.ip", at: at(8)}}
			c.addReads(g)
		}, at(8), web.path, "the dependency of web on gone cannot be kept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := core.NewSession(context.Background())
			c := New(&s, Options{}, false).c
			g := graph.New()
			if err := g.AddResource(&graph.Resource{Address: "web", Range: at(1)}); err != nil {
				t.Fatal(err)
			}
			tt.render(c, g)
			if len(c.Diags) != 1 {
				t.Fatalf("diagnostics %v, want one", c.Diags)
			}
			d := c.Diags[0]
			code := core.CodeInternal
			if tt.summary == "duplicate key" {
				code = core.CodeDuplicateKey
			}
			if d.Severity != diag.Error || d.Code != code || d.Range != tt.at || d.Path != tt.path || !strings.HasPrefix(d.Summary, tt.summary) {
				t.Errorf("got %s %s at %v %s: %q, want %s at %v %s: %q…", d.Severity, d.Code, d.Range, d.Path, d.Summary,
					code, tt.at, tt.path, tt.summary)
			}
		})
	}
}
