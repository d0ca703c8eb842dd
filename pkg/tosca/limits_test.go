package tosca

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// TestTextLimits generates templates whose descriptions and metadata
// values sit at and just over 64 KiB (too large for a readable fixture) and
// checks that only the ones over the limit are tosca.too_long errors, on
// their own line, and that the template still compiles.
func TestTextLimits(t *testing.T) {
	tests := []struct {
		name     string
		template func(text string) string
		line     int
	}{
		{"template description", func(s string) string {
			return "tosca_definitions_version: tosca_simple_yaml_1_3\ndescription: " + s + "\ntopology_template:\n  node_templates:\n    web: {type: tosca.nodes.Root}\n"
		}, 2},
		{"metadata value", func(s string) string {
			return "tosca_definitions_version: tosca_simple_yaml_1_3\nmetadata:\n  note: " + s + "\ntopology_template:\n  node_templates:\n    web: {type: tosca.nodes.Root}\n"
		}, 3},
		{"template_author", func(s string) string {
			return "tosca_definitions_version: tosca_simple_yaml_1_0\ntemplate_author: " + s + "\ntopology_template:\n  node_templates:\n    web: {type: tosca.nodes.Root}\n"
		}, 2},
		{"property definition description", func(s string) string {
			return "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  Server:\n    derived_from: tosca.nodes.Root\n    properties:\n      size:\n        type: integer\n        description: " + s + "\n        default: 1\ntopology_template:\n  node_templates:\n    web: {type: Server}\n"
		}, 8},
		{"node template description", func(s string) string {
			return "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    web:\n      type: tosca.nodes.Root\n      description: " + s + "\n"
		}, 6},
		{"input description", func(s string) string {
			return "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  inputs:\n    size: {type: integer, default: 1, description: " + s + "}\n  node_templates:\n    web: {type: tosca.nodes.Root}\n"
		}, 4},
	}
	for _, tt := range tests {
		for _, size := range []int{yamlsrc.MaxDescriptionBytes, yamlsrc.MaxDescriptionBytes + 1} {
			t.Run(tt.name+"/"+strconv.Itoa(size), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "t.yaml")
				if err := os.WriteFile(path, []byte(tt.template(strings.Repeat("d", size))), 0o600); err != nil {
					t.Fatal(err)
				}
				g, diags := Compile(context.Background(), path, Options{})
				over := size > yamlsrc.MaxDescriptionBytes
				if !over && len(diags) > 0 {
					t.Fatalf("%d bytes: want no diagnostics, got %v", size, diags)
				}
				if over {
					if len(diags) != 1 || diags[0].Code != CodeTooLong || diags[0].Range.Start.Line != tt.line || !strings.Contains(diags[0].Summary, "the limit is 65536 (64 KiB)") {
						t.Fatalf("%d bytes: want one %s on line %d, got %v", size, CodeTooLong, tt.line, diags)
					}
				}
				if g == nil || g.Len() != 1 {
					t.Fatalf("want the template compiled (one resource), got %v", g)
				}
			})
		}
	}
}
