package tosca

import (
	"encoding/json"
	"fmt"
)

// JSON Schema of a TOSCA service template, for editors that have no
// language server (the YAML language server reads it from a modeline):
// a file whose tosca_definitions_version is tosca_2_0 follows TOSCA 2.0's
// grammar (schema2.go), any other TOSCA 1.0–1.3's. It is built from the compiler's own keyname lists, so that
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
	s := schema{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"title":       "TOSCA service template: Simple Profile in YAML 1.0–1.3, or TOSCA 2.0 (xosplan)",
		"description": "A TOSCA file; tosca_definitions_version: tosca_2_0 selects TOSCA 2.0's grammar.",
		"if":          schema{"properties": schema{"tosca_definitions_version": schema{"const": version20}}, "required": []string{"tosca_definitions_version"}},
		"then":        schema{"$ref": "#/$defs/tosca2"},
		"else":        schema{"$ref": "#/$defs/tosca1"},
		"$defs":       schema{"tosca1": serviceTemplateSchema(), "tosca2": tosca2Schema()},
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("marshalling the TOSCA JSON Schema: %w", err)
	}
	return append(data, '\n'), nil
}

type schema = map[string]any

func object(props schema, closed bool, description string) schema {
	s := schema{"type": "object", "properties": props}
	if closed {
		s["additionalProperties"] = false
	}
	if description != "" {
		s["description"] = description
	}
	return s
}

// mapOf is a map of names to values of a schema; a value may be null (an
// empty entry).
func mapOf(of schema, description string) schema {
	return schema{"type": []string{"object", "null"}, "additionalProperties": schema{"anyOf": []schema{of, {"type": "null"}}}, "description": description}
}

func listOf(of schema, description string) schema {
	return schema{"type": []string{"array", "null"}, "items": of, "description": description}
}

// keys makes a closed or open map whose properties are the keynames, any
// value each, with what descriptions says of some.
func keys(names []string, closed bool, descriptions map[string]schema) schema {
	props := schema{}
	for _, k := range names {
		if d, ok := descriptions[k]; ok {
			props[k] = d
			continue
		}
		props[k] = schema{}
	}
	return object(props, closed, "")
}

// str is a string, or nothing: real files leave descriptions empty.
func str(description string) schema {
	return schema{"type": []string{"string", "null"}, "description": description}
}

func serviceTemplateSchema() schema {
	propDef := keys(propDefKeys(), false, map[string]schema{
		"type":        str("the data type of the value"),
		"description": str("what the value is for"),
		"required":    schema{"type": []string{"boolean", "string"}},
		"constraints": listOf(schema{"type": "object"}, "constraints the value must satisfy"),
	})
	reqAssign := schema{"anyOf": []schema{
		{"type": []string{"string", "null"}, "description": "the node template (or node type) that satisfies the requirement"},
		keys(reqAssignKeys(), false, map[string]schema{"node": str("the node template or node type that satisfies the requirement")}),
	}}
	namedList := func(of schema, description string) schema {
		return listOf(schema{"type": "object", "additionalProperties": of, "minProperties": 1, "maxProperties": 1}, description)
	}
	nodeTemplate := keys(nodeTplKeys(), true, map[string]schema{
		"type":         str("the node type of the template"),
		"description":  str("what the template is for"),
		"properties":   mapOf(schema{}, "property values"),
		"attributes":   mapOf(schema{}, "attribute values"),
		"requirements": namedList(reqAssign, "requirement assignments, one name each"),
		"capabilities": mapOf(schema{"type": "object"}, "capability assignments"),
		"interfaces":   mapOf(schema{"type": "object"}, "interface assignments"),
		"directives":   listOf(schema{"type": "string"}, "directives: select, substitute"),
		"copy":         str("the node template this one copies"),
	})
	topology := keys(topologyKeys(), true, map[string]schema{
		"description":            str("what the topology is"),
		"inputs":                 mapOf(propDef, "input parameters"),
		"node_templates":         mapOf(nodeTemplate, "the node templates, by name"),
		"relationship_templates": mapOf(keys(relTplKeys(), true, map[string]schema{"type": str("the relationship type")}), "the relationship templates, by name"),
		"groups":                 mapOf(keys(groupKeys(), true, map[string]schema{"type": str("the group type"), "members": listOf(schema{"type": "string"}, "node templates")}), "the groups, by name"),
		// ARIA writes policies as a map of names to policies.
		"policies":              schema{"anyOf": []schema{namedList(keys(policyKeys(), true, nil), "the policies, one name each"), mapOf(schema{"type": "object"}, "the policies, by name (ARIA)")}},
		"outputs":               mapOf(keys(outputKeys(), true, nil), "output parameters"),
		"substitution_mappings": schema{"type": []string{"object", "null"}},
		"workflows":             mapOf(schema{"type": "object"}, "imperative workflows (TOSCA 1.1)"),
	})
	typeDef := object(schema{
		"derived_from": str("the parent type"),
		"description":  str("what the type is for"),
		"version":      schema{"type": []string{"string", "number"}},
		// Type files in the wild (XOS, profiles) write definitions
		// loosely; the compiler warns of what it does not read.
		"properties":   mapOf(schema{}, "property definitions"),
		"attributes":   mapOf(schema{}, "attribute definitions"),
		"requirements": schema{"type": []string{"array", "object", "null"}, "description": "requirement definitions, one name each"},
		"capabilities": mapOf(schema{"type": []string{"object", "string"}}, "capability definitions"),
	}, false, "")
	sections := map[string]schema{
		"tosca_definitions_version": schema{"type": "string", "description": "the TOSCA version of the file",
			"examples": []string{version13, version12, version11, version10}},
		"description":       str("what the service template is"),
		"metadata":          schema{"description": "template metadata (a map of names to strings)"},
		"imports":           listOf(schema{"anyOf": []schema{{"type": "string"}, {"type": "object"}}}, "files whose definitions this one uses"),
		"repositories":      mapOf(schema{"anyOf": []schema{{"type": "string"}, {"type": "object"}}}, "repositories imports may name"),
		"dsl_definitions":   schema{},
		"topology_template": topology,
	}
	for k := kind(0); k < numKinds; k++ {
		sections[k.Section()] = mapOf(typeDef, k.Word()+" definitions, by name")
	}
	s := keys(topLevelKeys(), true, sections)
	s["description"] = "a TOSCA Simple Profile in YAML 1.0–1.3 service template"
	return s
}
