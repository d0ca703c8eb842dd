package config

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
)

// TestMergeReportsTheSecondDefinitionOfAnAddress: two templates defining
// the same address merge into a graph holding the first definition, with
// one positioned error at the second, and with the files of both.
func TestMergeReportsTheSecondDefinitionOfAnAddress(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{
		"a.yaml": toscaApp,
		"b.yaml": toscaApp + "    db:\n      type: tosca.nodes.Root\n      requirements:\n        - dependency: app\n",
	})
	res := Load(context.Background(), []string{dir}, Options{})
	if len(res.Diags) != 0 {
		t.Fatalf("load: %v", res.Diags)
	}
	g, files, diags := res.Merge()
	if len(diags) != 1 || diags[0].Code != CodeDuplicateAddress {
		t.Fatalf("diagnostics = %v, want one %s", diags, CodeDuplicateAddress)
	}
	if d := diags[0]; d.Range.File != filepath.Join(dir, "b.yaml") || d.Range.Start.Line != 4 {
		t.Errorf("the duplicate is reported at %s, want b.yaml:4", d.Range)
	}
	if got := g.Addresses(); !slices.Equal(got, []string{"app", "db"}) {
		t.Errorf("addresses = %v", got)
	}
	// b's db depends on b's app, which was left out: that edge goes with it.
	if edges := g.Edges(); len(edges) != 0 {
		t.Errorf("edges = %v, want none", edges)
	}
	for _, f := range []string{"a.yaml", "b.yaml"} {
		if !slices.Contains(files, filepath.Join(dir, f)) {
			t.Errorf("files = %v, want %s among them", files, f)
		}
	}
}

// TestMergeJoinsUnits: resources and edges of different units merge into
// one graph, whose sources are the files of every unit.
func TestMergeJoinsUnits(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{
		"a.yaml":       toscaApp,
		"b.yaml":       "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    web:\n      type: tosca.nodes.Root\n    db:\n      type: tosca.nodes.Root\n      requirements:\n        - dependency: web\n",
		"env/one.yaml": tonomiApp,
	})
	res := Load(context.Background(), []string{dir}, Options{})
	if len(res.Diags) != 0 {
		t.Fatalf("load: %v", res.Diags)
	}
	g, files, diags := res.Merge()
	if len(diags) != 0 {
		t.Fatalf("merge: %v", diags)
	}
	if got := g.Addresses(); !slices.Contains(got, "app") || !slices.Contains(got, "web") || !slices.Contains(got, "db") {
		t.Errorf("addresses = %v", got)
	}
	if edges := g.Edges(); len(edges) != 1 || edges[0].Source != "db" || edges[0].Target != "web" {
		t.Errorf("edges = %v, want db -> web", edges)
	}
	if !slices.Equal(g.Sources, files) || !slices.IsSorted(files) || !slices.Contains(files, filepath.Join(dir, "env", "one.yaml")) {
		t.Errorf("sources = %v, files = %v", g.Sources, files)
	}
}

// TestMergeOfOneUnitIsItsGraph: one compiled unit is the graph as its
// front end made it.
func TestMergeOfOneUnitIsItsGraph(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{"a.yaml": toscaApp})
	res := Load(context.Background(), []string{filepath.Join(dir, "a.yaml")}, Options{})
	g, files, diags := res.Merge()
	if g != res.Units[0].Graph || len(diags) != 0 || !slices.Contains(files, filepath.Join(dir, "a.yaml")) {
		t.Errorf("graph %p (unit %p), files %v, diagnostics %v", g, res.Units[0].Graph, files, diags)
	}
	empty, files, diags := Result{}.Merge()
	if empty == nil || empty.Len() != 0 || len(files) != 0 || len(diags) != 0 {
		t.Errorf("no unit: graph %v, files %v, diagnostics %v", empty, files, diags)
	}
}

// TestMergeKeepsTheOutputsOfEveryUnit: a folder of several templates
// merges their outputs (sensitive ones staying sensitive) instead of
// dropping them, and an output two units declare is one error at the
// second, the first value kept.
func TestMergeKeepsTheOutputsOfEveryUnit(t *testing.T) {
	const head = "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n"
	dir := testutil.Tree(t, map[string]string{
		"a.yaml": head + "  node_templates:\n    web:\n      type: tosca.nodes.Root\n  outputs:\n    url:\n      value: http://a\n",
		"b.yaml": head + "  inputs:\n    pw:\n      type: string\n      default: hunter22\n      metadata:\n        sensitive: true\n  node_templates:\n    db:\n      type: tosca.nodes.Root\n  outputs:\n    secret:\n      value: { get_input: pw }\n    port:\n      value: 5432\n",
		"c.yaml": head + "  node_templates:\n    cache:\n      type: tosca.nodes.Root\n  outputs:\n    url:\n      value: http://c\n",
	})
	res := Load(context.Background(), []string{dir}, Options{})
	if len(res.Diags) != 0 {
		t.Fatalf("load: %v", res.Diags)
	}
	g, _, diags := res.Merge()
	if len(diags) != 1 || diags[0].Code != CodeDuplicateOutput || diags[0].Range.File != filepath.Join(dir, "c.yaml") {
		t.Fatalf("diagnostics = %v, want one %s in c.yaml", diags, CodeDuplicateOutput)
	}
	if got := slices.Sorted(maps.Keys(g.Outputs)); !slices.Equal(got, []string{"port", "secret", "url"}) {
		t.Fatalf("outputs = %v, want port, secret and url", got)
	}
	if url, _ := g.Outputs["url"].(string); url != "http://a" {
		t.Errorf("url = %v, want the first declaration's http://a", g.Outputs["url"])
	}
	if !slices.Equal(g.SensitiveOutputs, []string{"secret"}) {
		t.Errorf("sensitive outputs = %v, want [secret]", g.SensitiveOutputs)
	}
}
