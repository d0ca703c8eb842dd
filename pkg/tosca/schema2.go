package tosca

// JSON Schema of a TOSCA 2.0 file, the tosca_2_0 branch of JSONSchema.
// Like the 1.x one it is built from the compiler's own keyname lists (the
// 2.0 phases' and v2keynames.go's) and checks shape only: which keys a
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
func oneEntryList(of schema, description string) schema {
	return schema{"type": "array", "items": schema{"type": "object", "additionalProperties": of, "minProperties": 1, "maxProperties": 1}, "description": description}
}

// strictMapOf is a map of names to values of a schema, which says
// whether an empty entry (null) is allowed.
func strictMapOf(of schema, description string) schema {
	return schema{"type": "object", "additionalProperties": of, "description": description}
}

// tosca2Schema is the schema of a TOSCA 2.0 file.
func tosca2Schema() schema {
	anyMap := schema{"type": []string{"object", "null"}}
	metadata := schema{"type": []string{"object", "null"}, "description": "metadata: a map of names to values"}
	described := func(s schema) schema {
		if props, ok := s["properties"].(schema); ok {
			props["description"] = str("what it is for")
			if _, ok := props["metadata"]; ok {
				props["metadata"] = metadata
			}
		}
		return s
	}
	propDef := func(isProp bool) schema {
		// A refinement's short form is the value it gives: any value.
		return schema{"anyOf": []schema{
			described(keys(append(propKeys2(isProp), legacyKeys(legacyPropKey, "constraints", "status")...), true, map[string]schema{"type": str("the data type of the value")})),
			{"not": schema{"type": "object"}},
		}}
	}
	params := strictMapOf(described(keys(append(paramKeys2(), legacyKeys(legacyPropKey, "constraints", "status")...), true, map[string]schema{"type": str("the data type of the value")})), "parameter definitions, by name")
	ifaceAssign := described(keys(ifaceAssignKeys2(), true, map[string]schema{"operations": mapOf(schema{}, "operation assignments"), "notifications": mapOf(schema{}, "notification assignments")}))
	reqAssign := schema{"anyOf": []schema{
		{"type": []string{"string", "array", "null"}, "description": "the node template (or node type, or [template, index]) that fulfils the requirement"},
		described(keys(reqAssignKeys2(), true, map[string]schema{"relationship": schema{"anyOf": []schema{str("a relationship template or type"), described(keys(relAssignKeys2(), true, nil))}}})),
	}}
	nodeTemplate := described(keys(nodeTemplateKeys2(), true, map[string]schema{
		"type":         str("the node type of the template"),
		"properties":   mapOf(schema{}, "property values"),
		"attributes":   mapOf(schema{}, "attribute values"),
		"requirements": oneEntryList(reqAssign, "requirement assignments, one name each"),
		"capabilities": mapOf(described(keys(capAssignKeys2(), true, nil)), "capability assignments"),
		"interfaces":   mapOf(ifaceAssign, "interface assignments"),
		"artifacts":    mapOf(described(keys(artifactKeys2(), true, nil)), "artifact definitions"),
		"directives":   schema{"type": []string{"array", "null"}, "items": schema{"type": "string"}, "description": "create, select, substitute"},
		"copy":         str("the node template this one copies"),
	}))
	serviceTemplate := described(keys(serviceTemplateKeys2(), true, map[string]schema{
		"inputs":                 params,
		"outputs":                params,
		"node_templates":         strictMapOf(nodeTemplate, "the node templates, by name"),
		"relationship_templates": strictMapOf(described(keys(relTemplateKeys2(), true, map[string]schema{"interfaces": mapOf(ifaceAssign, "interface assignments")})), "the relationship templates, by name"),
		"groups":                 strictMapOf(described(keys(groupKeys2(), true, map[string]schema{"members": schema{"type": []string{"array", "null"}, "items": schema{"type": "string"}}})), "the groups, by name"),
		"policies":               oneEntryList(described(keys(policyKeys2(), true, map[string]schema{"triggers": mapOf(described(keys(triggerKeys2(), true, nil)), "triggers, by name")})), "the policies, one name each"),
		"substitution_mappings":  schema{"type": "object"},
		"workflows":              strictMapOf(schema{"type": "object"}, "declarative workflows, by name"),
		"functions":              strictMapOf(anyMap, "functions the service template declares or refines"),
	}))
	serviceTemplate["required"] = []string{"node_templates"}
	typeDef := func(k kind) schema {
		props := map[string]schema{
			"derived_from": str("the parent type"),
			"version":      schema{"type": []string{"string", "number", "null"}},
		}
		for _, sec := range []string{"properties", "attributes"} {
			props[sec] = mapOf(propDef(sec == "properties"), sec[:len(sec)-1]+" definitions")
		}
		switch k {
		case kNode:
			props["requirements"] = oneEntryList(schema{"anyOf": []schema{str("the capability type"), described(keys(append(typeKeynames2(kNode, []string{"requirements", "*"}), legacyKeys(legacyReqKey, "occurrences")...), true, nil))}}, "requirement definitions, one name each")
			props["capabilities"] = mapOf(schema{"anyOf": []schema{str("the capability type"), {"type": "object"}}}, "capability definitions")
		}
		return schema{"anyOf": []schema{described(keys(append(typeKeys2(k), legacyKeys(legacyTypeKey, "constraints", "valid_source_types", "valid_target_types")...), true, props)), {"type": "null"}}}
	}
	sections := map[string]schema{
		"tosca_definitions_version": schema{"const": version20, "description": "the TOSCA version of the file"},
		"metadata":                  schema{"description": "file metadata (a map of names to values)"},
		"dsl_definitions":           schema{"description": "anchored YAML for aliases to repeat (§6.3)"},
		"profile":                   schema{"type": "string", "description": "the name of the profile this file defines"},
		"imports": schema{"type": "array", "description": "files and profiles whose definitions this one uses", "items": schema{"anyOf": []schema{
			{"type": "string"},
			described(keys(append(importKeys2(), legacyKeys(legacyImport, "file", "namespace_prefix", "namespace_uri")...), true, nil)),
		}}},
		"repositories":     strictMapOf(schema{"anyOf": []schema{{"type": "string"}, described(keys(append(repositoryKeys2(), legacyKeys(legacyRepository, "credential")...), true, nil))}}, "repositories imports may name"),
		"functions":        strictMapOf(described(keys(functionKeys2(), true, map[string]schema{"signatures": schema{"type": "array"}})), "custom functions, by name"),
		"service_template": serviceTemplate,
	}
	for k := kind(0); k < numKinds; k++ {
		sections[k.Section()] = strictMapOf(typeDef(k), k.Word()+" definitions, by name")
	}
	s := described(keys(topLevelKeys2(), true, sections))
	s["required"] = []string{"tosca_definitions_version"}
	s["description"] = "a TOSCA 2.0 file: a service template or a profile"
	return s
}
