package yamlsrc

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// reparseSources are texts edited at random by the Reparse tests: block
// mappings several levels deep, flow maps on one line and across lines,
// lists, block scalars, comments, quoted and multi-line plain scalars.
func reparseSources() []string {
	var flow strings.Builder
	flow.WriteString("tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n")
	for i := range 40 {
		fmt.Fprintf(&flow, "    app%d: {type: bench.App, properties: {port: %d, mode: {get_input: mode}}, requirements: [{host: host%d}]}\n", i, 80+i, i%4)
	}
	return []string{flow.String(), `# a comment first
tosca_definitions_version: tosca_2_0
description: >-
  A folded
  description.
service_template:
  inputs:
    port:
      type: integer
      default: 8080   # trailing comment
  node_templates:
    web:
      type: Web
      properties:
        name: "quoted: value"
        script: |
          echo one
          echo two
        words: a plain
          scalar over lines
        list:
          - a
          - { b: 1,
              c: 2 }
      requirements:
        - host: host
    host:
      type: Compute
  outputs:
    url: { value: x }
`, "a: 1\nb:\n  c: 2\n  d:\n    e: 3\n    f: [1, 2,\n      3]\n  g: 4\nh: 5\n", "x:\n- a\n- b\ny: 1\n"}
}

// TestReparseIsParse edits the sources at random, thousands of times,
// and checks that whenever Reparse handles an edit, its tree is the one
// Parse gives and Parse reports nothing — and that it handles the
// edits typing makes inside an entry.
func TestReparseIsParse(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	snippets := []string{"x", "1", "70000", ": ", " ", "\n", "  ", "- ", "{", "}", "[", ",", "a: b\n", "#c", "\"", "'", "|\n", "    k: v\n", "", ""}
	handled, tried := 0, 0
	for _, src := range reparseSources() {
		prev, diags := Parse("f.yaml", []byte(src), Limits{})
		if diags.HasErrors() || prev == nil {
			t.Fatalf("source: %v", diags)
		}
		for range 1500 {
			at := r.IntN(len(src) + 1)
			cut := min(r.IntN(4), len(src)-at)
			edited := src[:at] + snippets[r.IntN(len(snippets))] + src[at+cut:]
			tried++
			got, ok := Reparse("f.yaml", prev, []byte(src), []byte(edited), Limits{})
			if !ok {
				continue
			}
			handled++
			want, diags := Parse("f.yaml", []byte(edited), Limits{})
			if len(diags) > 0 {
				t.Fatalf("Reparse handled an edit Parse reports (%v):\n%s", diags, edited)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Reparse differs from Parse after editing %q at %d:\n%s", edited[at:min(at+10, len(edited))], at, edited)
			}
		}
	}
	if handled < tried/10 {
		t.Errorf("Reparse handled %d of %d edits", handled, tried)
	}
	t.Logf("Reparse handled %d of %d random edits", handled, tried)
}

// TestReparseLeavesPrevAlone proves that Reparse does not change the tree
// it starts from, which an earlier compile may still read.
func TestReparseLeavesPrevAlone(t *testing.T) {
	src := reparseSources()[0]
	prev, _ := Parse("f.yaml", []byte(src), Limits{})
	again, _ := Parse("f.yaml", []byte(src), Limits{})
	edited := strings.Replace(src, "port: 85,", "port: 70000,\n", 1)
	edited = strings.Replace(edited, "port: 70000,\n", "port: 7000,", 1)
	if _, ok := Reparse("f.yaml", prev, []byte(src), []byte(edited), Limits{}); !ok {
		t.Fatal("an edit of one port is not handled")
	}
	if !reflect.DeepEqual(prev, again) {
		t.Error("Reparse changed the tree it started from")
	}
}

// TestReparseRefuses lists changes Reparse leaves to Parse.
func TestReparseRefuses(t *testing.T) {
	for _, tc := range []struct{ name, old, new string }{
		{"across entries", "a: 1\nb: 2\n", "a: 1 b: 2\n"},
		{"an anchor", "a: &x 1\nb: 2\n", "a: &x 1\nb: 3\n"},
		{"a new entry", "a: 1\nb: 2\n", "a: 1\nc: 3\nb: 2\n"},
		{"a second document", "a: 1\nb: 2\n", "a: 1\n---\nb: 2\n"},
		{"a syntax error", "a: 1\nb: 2\n", "a: 1\nb: [2\n"},
		{"inside a flow map", "a: {b: 1,\n  c: 2}\n", "a: {b: 1,\n  c: 3}\n"},
		{"before the first key", "# x\na: 1\n", "# y\na: 1\n"},
	} {
		prev, _ := Parse("f.yaml", []byte(tc.old), Limits{})
		got, ok := Reparse("f.yaml", prev, []byte(tc.old), []byte(tc.new), Limits{})
		if !ok {
			continue
		}
		want, diags := Parse("f.yaml", []byte(tc.new), Limits{})
		if tc.name == "inside a flow map" && len(diags) == 0 && reflect.DeepEqual(got, want) {
			continue
		}
		t.Errorf("%s: handled (%v)", tc.name, diags)
	}
}

// FuzzReparse checks Reparse against Parse for any text and edit.
func FuzzReparse(f *testing.F) {
	for _, src := range reparseSources() {
		f.Add(src, len(src)/2, 1, "x")
		f.Add(src, len(src)/3, 0, "\n")
	}
	f.Fuzz(func(t *testing.T, src string, at, cut int, insert string) {
		if at < 0 || at > len(src) || cut < 0 || at+cut > len(src) {
			return
		}
		prev, diags := Parse("f.yaml", []byte(src), Limits{})
		if len(diags) > 0 || prev == nil {
			return
		}
		edited := src[:at] + insert + src[at+cut:]
		got, ok := Reparse("f.yaml", prev, []byte(src), []byte(edited), Limits{})
		if !ok {
			return
		}
		want, diags := Parse("f.yaml", []byte(edited), Limits{})
		if len(diags) > 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("Reparse differs from Parse (%v)", diags)
		}
	})
}
