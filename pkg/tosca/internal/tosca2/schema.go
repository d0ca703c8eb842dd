package tosca2

import "github.com/xosplan/xosplan/pkg/tosca/internal/core"

// JSON Schema of a TOSCA 2.0 file, the tosca_2_0 branch of JSONSchema.
// Like the 1.x one it is built from the compiler's own keyname lists (the
// 2.0 phases' and keynames.go's) and checks shape only: which keys a
// map may hold, which values are maps, lists or strings. Keynames that
// 2.0 reads as 1.x did with a tosca.legacy_keyname warning (occurrences,
// constraints, a repository's credential…) are accepted, as Compile
// accepts them; those it refuses (topology_template) are not.

// legacyKeys lists the keynames legacy (one of the legacy* functions)
// names, among candidates.
func legacyKeys(legacy func(string) string, candidates ...string) []string {
	var out []string
	for _, k := range candidates {
		if legacy(k) != "" {
			out = append(out, k)
		}
	}
	return out
}

// oneEntryList is a list of maps of one entry each, whose values follow
// of: TOSCA 2.0's requirements and policies.
func oneEntryList(of core.Schema, description string) core.Schema {
	return core.Schema{"type": "array", "items": core.Schema{"type": "object", "additionalProperties": of, "minProperties": 1, "maxProperties": 1}, "description": description}
}

// strictMapOf is a map of names to values of a schema, which says
// whether an empty entry (null) is allowed.
func strictMapOf(of core.Schema, description string) core.Schema {
	return core.Schema{"type": "object", "additionalProperties": of, "description": description}
}

// Schema is the schema of a TOSCA 2.0 file.
func Schema() core.Schema {
	anyMap := core.Schema{"type": []string{"object", "null"}}
	metadata := core.Schema{"type": []string{"object", "null"}, "description": "metadata: a map of names to values"}
	described := func(s core.Schema) core.Schema {
		if props, ok := s["properties"].(core.Schema); ok {
			props["description"] = core.Str("what it is for")
			if _, ok := props["metadata"]; ok {
				props["metadata"] = metadata
			}
		}
		return s
	}
	propDef := func(isProp bool) core.Schema {
		// A refinement's short form is the value it gives: any value.
		return core.Schema{"anyOf": []core.Schema{
			described(core.Keys(append(propKeys(isProp), legacyKeys(legacyPropKey, "constraints", "status")...), true, map[string]core.Schema{"type": core.Str("the data type of the value")})),
			{"not": core.Schema{"type": "object"}},
		}}
	}
	params := strictMapOf(described(core.Keys(append(paramKeys(), legacyKeys(legacyPropKey, "constraints", "status")...), true, map[string]core.Schema{"type": core.Str("the data type of the value")})), "parameter definitions, by name")
	ifaceAssign := described(core.Keys(ifaceAssignKeys(), true, map[string]core.Schema{"operations": core.MapOf(core.Schema{}, "operation assignments"), "notifications": core.MapOf(core.Schema{}, "notification assignments")}))
	reqAssign := core.Schema{"anyOf": []core.Schema{
		{"type": []string{"string", "array", "null"}, "description": "the node template (or node type, or [template, index]) that fulfils the requirement"},
		described(core.Keys(reqAssignKeys(), true, map[string]core.Schema{"relationship": core.Schema{"anyOf": []core.Schema{core.Str("a relationship template or type"), described(core.Keys(relAssignKeys(), true, nil))}}})),
	}}
	nodeTemplate := described(core.Keys(nodeTemplateKeys(), true, map[string]core.Schema{
		"type":         core.Str("the node type of the template"),
		"properties":   core.MapOf(core.Schema{}, "property values"),
		"attributes":   core.MapOf(core.Schema{}, "attribute values"),
		"requirements": oneEntryList(reqAssign, "requirement assignments, one name each"),
		"capabilities": core.MapOf(described(core.Keys(capAssignKeys(), true, nil)), "capability assignments"),
		"interfaces":   core.MapOf(ifaceAssign, "interface assignments"),
		"artifacts":    core.MapOf(described(core.Keys(artifactKeys(), true, nil)), "artifact definitions"),
		"directives":   core.Schema{"type": []string{"array", "null"}, "items": core.Schema{"type": "string"}, "description": "create, select, substitute"},
		"copy":         core.Str("the node template this one copies"),
	}))
	serviceTemplate := described(core.Keys(serviceTemplateKeys(), true, map[string]core.Schema{
		"inputs":                 params,
		"outputs":                params,
		"node_templates":         strictMapOf(nodeTemplate, "the node templates, by name"),
		"relationship_templates": strictMapOf(described(core.Keys(relTemplateKeys(), true, map[string]core.Schema{"interfaces": core.MapOf(ifaceAssign, "interface assignments")})), "the relationship templates, by name"),
		"groups":                 strictMapOf(described(core.Keys(groupKeys(), true, map[string]core.Schema{"members": core.Schema{"type": []string{"array", "null"}, "items": core.Schema{"type": "string"}}})), "the groups, by name"),
		"policies":               oneEntryList(described(core.Keys(policyKeys(), true, map[string]core.Schema{"triggers": core.MapOf(described(core.Keys(triggerKeys(), true, nil)), "triggers, by name")})), "the policies, one name each"),
		"substitution_mappings":  core.Schema{"type": "object"},
		"workflows":              strictMapOf(core.Schema{"type": "object"}, "declarative workflows, by name"),
		"functions":              strictMapOf(anyMap, "functions the service template declares or refines"),
	}))
	serviceTemplate["required"] = []string{"node_templates"}
	typeDef := func(k core.Kind) core.Schema {
		props := map[string]core.Schema{
			"derived_from": core.Str("the parent type"),
			"version":      core.Schema{"type": []string{"string", "number", "null"}},
		}
		for _, sec := range []string{"properties", "attributes"} {
			props[sec] = core.MapOf(propDef(sec == "properties"), sec[:len(sec)-1]+" definitions")
		}
		switch k {
		case core.KNode:
			props["requirements"] = oneEntryList(core.Schema{"anyOf": []core.Schema{core.Str("the capability type"), described(core.Keys(append(typeKeynames(core.KNode, []string{"requirements", "*"}), legacyKeys(legacyReqKey, "occurrences")...), true, nil))}}, "requirement definitions, one name each")
			props["capabilities"] = core.MapOf(core.Schema{"anyOf": []core.Schema{core.Str("the capability type"), {"type": "object"}}}, "capability definitions")
		}
		return core.Schema{"anyOf": []core.Schema{described(core.Keys(append(typeKeys(k), legacyKeys(legacyTypeKey, "constraints", "valid_source_types", "valid_target_types")...), true, props)), {"type": "null"}}}
	}
	sections := map[string]core.Schema{
		"tosca_definitions_version": core.Schema{"const": Version, "description": "the TOSCA version of the file"},
		"metadata":                  core.Schema{"description": "file metadata (a map of names to values)"},
		"dsl_definitions":           core.Schema{"description": "anchored YAML for aliases to repeat (§6.3)"},
		"profile":                   core.Schema{"type": "string", "description": "the name of the profile this file defines"},
		"imports": core.Schema{"type": "array", "description": "files and profiles whose definitions this one uses", "items": core.Schema{"anyOf": []core.Schema{
			{"type": "string"},
			described(core.Keys(append(importKeys(), legacyKeys(legacyImport, "file", "namespace_prefix", "namespace_uri")...), true, nil)),
		}}},
		"repositories":     strictMapOf(core.Schema{"anyOf": []core.Schema{{"type": "string"}, described(core.Keys(append(repositoryKeys(), legacyKeys(legacyRepository, "credential")...), true, nil))}}, "repositories imports may name"),
		"functions":        strictMapOf(described(core.Keys(functionKeys(), true, map[string]core.Schema{"signatures": core.Schema{"type": "array"}})), "custom functions, by name"),
		"service_template": serviceTemplate,
	}
	for k := core.Kind(0); k < core.NumKinds; k++ {
		sections[k.Section()] = strictMapOf(typeDef(k), k.Word()+" definitions, by name")
	}
	s := described(core.Keys(TopLevelKeys(), true, sections))
	s["required"] = []string{"tosca_definitions_version"}
	s["description"] = "a TOSCA 2.0 file: a service template or a profile"
	return s
}
