package tosca1

import (
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// Schema is the JSON Schema of a TOSCA 1.0–1.3 file (tosca.JSONSchema).
func Schema() core.Schema {
	propDef := core.Keys(propDefKeys(), false, map[string]core.Schema{
		"type":        core.Str("the data type of the value"),
		"description": core.Str("what the value is for"),
		"required":    core.Schema{"type": []string{"boolean", "string"}},
		"constraints": core.ListOf(core.Schema{"type": "object"}, "constraints the value must satisfy"),
	})
	reqAssign := core.Schema{"anyOf": []core.Schema{
		{"type": []string{"string", "null"}, "description": "the node template (or node type) that satisfies the requirement"},
		core.Keys(reqAssignKeys(), false, map[string]core.Schema{"node": core.Str("the node template or node type that satisfies the requirement")}),
	}}
	namedList := func(of core.Schema, description string) core.Schema {
		return core.ListOf(core.Schema{"type": "object", "additionalProperties": of, "minProperties": 1, "maxProperties": 1}, description)
	}
	nodeTemplate := core.Keys(nodeTplKeys(), true, map[string]core.Schema{
		"type":         core.Str("the node type of the template"),
		"description":  core.Str("what the template is for"),
		"properties":   core.MapOf(core.Schema{}, "property values"),
		"attributes":   core.MapOf(core.Schema{}, "attribute values"),
		"requirements": namedList(reqAssign, "requirement assignments, one name each"),
		"capabilities": core.MapOf(core.Schema{"type": "object"}, "capability assignments"),
		"interfaces":   core.MapOf(core.Schema{"type": "object"}, "interface assignments"),
		"directives":   core.ListOf(core.Schema{"type": "string"}, "directives: select, substitute"),
		"copy":         core.Str("the node template this one copies"),
	})
	topology := core.Keys(topologyKeys(), true, map[string]core.Schema{
		"description":            core.Str("what the topology is"),
		"inputs":                 core.MapOf(propDef, "input parameters"),
		"node_templates":         core.MapOf(nodeTemplate, "the node templates, by name"),
		"relationship_templates": core.MapOf(core.Keys(relTplKeys(), true, map[string]core.Schema{"type": core.Str("the relationship type")}), "the relationship templates, by name"),
		"groups":                 core.MapOf(core.Keys(groupKeys(), true, map[string]core.Schema{"type": core.Str("the group type"), "members": core.ListOf(core.Schema{"type": "string"}, "node templates")}), "the groups, by name"),
		// ARIA writes policies as a map of names to policies.
		"policies":              core.Schema{"anyOf": []core.Schema{namedList(core.Keys(policyKeys(), true, nil), "the policies, one name each"), core.MapOf(core.Schema{"type": "object"}, "the policies, by name (ARIA)")}},
		"outputs":               core.MapOf(core.Keys(outputKeys(), true, nil), "output parameters"),
		"substitution_mappings": core.Schema{"type": []string{"object", "null"}},
		"workflows":             core.MapOf(core.Schema{"type": "object"}, "imperative workflows (TOSCA 1.1)"),
	})
	typeDef := core.Object(core.Schema{
		"derived_from": core.Str("the parent type"),
		"description":  core.Str("what the type is for"),
		"version":      core.Schema{"type": []string{"string", "number"}},
		// Type files in the wild (XOS, profiles) write definitions
		// loosely; the compiler warns of what it does not read.
		"properties":   core.MapOf(core.Schema{}, "property definitions"),
		"attributes":   core.MapOf(core.Schema{}, "attribute definitions"),
		"requirements": core.Schema{"type": []string{"array", "object", "null"}, "description": "requirement definitions, one name each"},
		"capabilities": core.MapOf(core.Schema{"type": []string{"object", "string"}}, "capability definitions"),
	}, false, "")
	sections := map[string]core.Schema{
		"tosca_definitions_version": core.Schema{"type": "string", "description": "the TOSCA version of the file",
			"examples": []string{version13, version12, version11, version10}},
		"description":       core.Str("what the service template is"),
		"metadata":          core.Schema{"description": "template metadata (a map of names to strings)"},
		"imports":           core.ListOf(core.Schema{"anyOf": []core.Schema{{"type": "string"}, {"type": "object"}}}, "files whose definitions this one uses"),
		"repositories":      core.MapOf(core.Schema{"anyOf": []core.Schema{{"type": "string"}, {"type": "object"}}}, "repositories imports may name"),
		"dsl_definitions":   core.Schema{},
		"topology_template": topology,
	}
	for k := kind(0); k < numKinds; k++ {
		sections[k.Section()] = core.MapOf(typeDef, k.Word()+" definitions, by name")
	}
	s := core.Keys(TopLevelKeys(), true, sections)
	s["description"] = "a TOSCA Simple Profile in YAML 1.0–1.3 service template"
	return s
}
