package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/diag"
)

// TestSpecLimits checks ORC's rule that every string and list of a
// resource's spec has a maximum length: a 200,000-byte property and a
// 50,000-item list (generated here) are each one positioned error with
// its code, at the value where the file writes it, in TOSCA 1.3, 2.0 and
// a Tonomi manifest; a computed value (a concat of an input) is caught
// too, at the property; the limits are configurable; nothing quotes the
// value; and the error holds only its resource in a synchronizer.
func TestSpecLimits(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	many := "[" + strings.TrimSuffix(strings.Repeat("h,", 50_000), ",") + "]"
	tosca13 := `tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  Big:
    derived_from: tosca.nodes.Root
    properties:
      motd: {type: string, required: false}
      hosts: {type: list, entry_schema: {type: string}, required: false}
      secret: {type: string, required: false, metadata: {sensitive: true}}
topology_template:
  inputs:
    part: {type: string, default: ""}
  node_templates:
    big:
      type: Big
      properties:
        motd: "` + long + `"
        hosts: ` + many + `
    computed:
      type: Big
      properties:
        motd: { concat: [ { get_input: part }, "!" ] }
    fine:
      type: Big
      properties:
        motd: short
        hosts: [a, b]
    hidden:
      type: Big
      properties:
        secret: "` + long + `"
`
	tosca20 := `tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
node_types:
  Big:
    derived_from: Root
    properties:
      hosts: {type: list, entry_schema: {type: string}, required: false}
service_template:
  node_templates:
    big:
      type: Big
      properties:
        hosts: ` + many + `
`
	manifest := `application:
  components:
    vm:
      type: scripted.Component
      configuration:
        factory.name: VM Factory
        factory.launchScript: /vm/launch.py
        factory.destroyScript: /vm/destroy.py
        configuration.motd: "` + long + `"
      interfaces:
        configuration:
          motd: configuration(string)
`
	type want struct {
		line, col int
		code      string
		address   string
	}
	tests := []struct {
		name   string
		file   string
		text   string
		inputs map[string]any
		limits SpecLimits
		want   []want
	}{{
		name: "tosca 1.3", file: "stack.yaml", text: tosca13,
		want: []want{{16, 15, CodeSpecStringTooLong, "big"}, {17, 16, CodeSpecListTooLong, "big"}, {30, 17, CodeSpecStringTooLong, "hidden"}},
	}, {
		name: "tosca 1.3 computed from an input", file: "stack.yaml", text: tosca13, inputs: map[string]any{"part": long},
		want: []want{{16, 15, CodeSpecStringTooLong, "big"}, {17, 16, CodeSpecListTooLong, "big"}, {21, 15, CodeSpecStringTooLong, "computed"}, {30, 17, CodeSpecStringTooLong, "hidden"}},
	}, {
		name: "tosca 1.3 limits raised", file: "stack.yaml", text: tosca13, limits: SpecLimits{MaxString: 300_000, MaxList: 60_000},
	}, {
		name: "tosca 1.3 limits lowered", file: "stack.yaml", text: strings.ReplaceAll(strings.ReplaceAll(tosca13, long, "y"), many, "[a]"),
		limits: SpecLimits{MaxString: 4, MaxList: 1},
		want:   []want{{25, 15, CodeSpecStringTooLong, "fine"}, {26, 16, CodeSpecListTooLong, "fine"}},
	}, {
		name: "tosca 2.0", file: "stack.yaml", text: tosca20,
		want: []want{{14, 16, CodeSpecListTooLong, "big"}},
	}, {
		name: "tonomi manifest", file: "env/VM.yml", text: manifest,
		want: []want{{9, 29, CodeSpecStringTooLong, "VM.vm"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, tt.file)
			res := loadTree(t, dir, map[string]string{tt.file: tt.text}, Options{Inputs: tt.inputs, SpecLimits: tt.limits})
			var got []want
			var limitDiags diag.Diagnostics
			for _, d := range res.Diags {
				if d.Code != CodeSpecStringTooLong && d.Code != CodeSpecListTooLong {
					if d.Severity == diag.Error {
						t.Errorf("unexpected error: %v [%s]", d, d.Code)
					}
					continue
				}
				limitDiags = append(limitDiags, d)
				if d.Range.File != p {
					t.Errorf("%v: in %s, want %s", d, d.Range.File, p)
				}
				if strings.Contains(d.Summary, "xxxx") || strings.Contains(d.Summary, "h,h") {
					t.Errorf("the diagnostic quotes the value: %.200s", d.Summary)
				}
				// A sensitive value's line is never shown.
				if hidden := strings.Contains(d.Summary, "secret"); d.Sensitive != hidden {
					t.Errorf("%v: Sensitive %v, want %v", d, d.Sensitive, hidden)
				}
				addr := ""
				if len(d.Related) == 1 {
					addr = strings.TrimSuffix(strings.TrimPrefix(d.Related[0].Message, "resource "), " is declared here")
				}
				got = append(got, want{d.Range.Start.Line, d.Range.Start.Column, d.Code, addr})
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v:\n%v", got, tt.want, limitDiags)
			}
			if len(tt.want) == 0 {
				return
			}
			g, _, mergeDiags := res.Merge()
			held := res.Holds(res.Diags.Extend(mergeDiags), g)
			if held.All || len(held.Resources) == 0 {
				t.Fatalf("held %+v", held)
			}
			for addr := range held.Resources {
				if !strings.Contains(fmt.Sprint(tt.want), " "+addr+"}") {
					t.Errorf("%s is held; only the resources over a limit should be", addr)
				}
			}
		})
	}
}
