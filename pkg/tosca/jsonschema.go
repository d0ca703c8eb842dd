package tosca

import (
	"encoding/json"
	"fmt"

	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
	"github.com/xosplan/xosplan/pkg/tosca/internal/tosca1"
	"github.com/xosplan/xosplan/pkg/tosca/internal/tosca2"
)

// JSON Schema of a TOSCA service template, for editors that have no
// language server (the YAML language server reads it from a modeline):
// a file whose tosca_definitions_version is tosca_2_0 follows TOSCA 2.0's
// grammar (internal/tosca2/schema.go), any other TOSCA 1.0–1.3's
// (internal/tosca1/schema.go). It is built from the compilers' own keyname lists, so that
// it names what Compile accepts; it checks the shape of a file (which
// keys a map may hold, which values are maps, lists or strings) and
// leaves the rest — types, values, references — to Compile. Where real
// files that tosca-parser or their projects accept go beyond the
// specification (type definitions with slips, ARIA's policies written as
// a map), it accepts them: a schema that rejects a valid file teaches
// its users to ignore it.

// JSONSchema returns the JSON Schema (draft 2020-12) of a TOSCA file,
// 1.0–1.3 or 2.0 by its tosca_definitions_version (if/then/else over
// $defs tosca1 and tosca2), indented, with a final newline. The same
// build always returns the same bytes.
func JSONSchema() ([]byte, error) {
	s := core.Schema{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"title":       "TOSCA service template: Simple Profile in YAML 1.0–1.3, or TOSCA 2.0 (xosplan)",
		"description": "A TOSCA file; tosca_definitions_version: tosca_2_0 selects TOSCA 2.0's grammar.",
		"if":          core.Schema{"properties": core.Schema{"tosca_definitions_version": core.Schema{"const": tosca2.Version}}, "required": []string{"tosca_definitions_version"}},
		"then":        core.Schema{"$ref": "#/$defs/tosca2"},
		"else":        core.Schema{"$ref": "#/$defs/tosca1"},
		"$defs":       core.Schema{"tosca1": tosca1.Schema(), "tosca2": tosca2.Schema()},
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("marshalling the TOSCA JSON Schema: %w", err)
	}
	return append(data, '\n'), nil
}
