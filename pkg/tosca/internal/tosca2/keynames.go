package tosca2

// The keynames of TOSCA 2.0 by place, for Keynames: the lists the 2.0
// phases check keys against (keys2), named by the place where they
// apply. TestKeynames2AreTheCompilers compiles a file that writes every
// keyname of every place and finds none reported unknown.

import (
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// keynames2 lists the keynames of the 2.0 grammar at a place (see
// Keynames); nil for a place it does not name.
func keynames2(place string) []string {
	parts := strings.Split(place, ".")
	if place == "" {
		return TopLevelKeys()
	}
	switch parts[0] {
	case "service_template":
		return serviceTemplateKeynames2(parts[1:])
	case "imports":
		if len(parts) == 1 {
			return importKeys2()
		}
	case "repositories":
		if len(parts) == 2 {
			return repositoryKeys2()
		}
	case "functions":
		return functionKeynames2(parts[1:])
	}
	for k := core.Kind(0); k < core.NumKinds; k++ {
		if parts[0] == k.Section() && len(parts) >= 2 && parts[1] == "*" {
			return typeKeynames2(k, parts[2:])
		}
	}
	return nil
}

func serviceTemplateKeynames2(rest []string) []string {
	if len(rest) == 0 {
		return serviceTemplateKeys2()
	}
	switch at := strings.Join(rest, "."); {
	case at == "inputs.*", at == "outputs.*":
		return paramKeys2()
	case at == "node_templates.*":
		return nodeTemplateKeys2()
	case at == "node_templates.*.requirements.*":
		return reqAssignKeys2()
	case at == "node_templates.*.requirements.*.relationship":
		return relAssignKeys2()
	case at == "node_templates.*.capabilities.*":
		return capAssignKeys2()
	case at == "node_templates.*.artifacts.*":
		return artifactKeys2()
	case at == "relationship_templates.*":
		return relTemplateKeys2()
	case at == "groups.*":
		return groupKeys2()
	case at == "policies.*":
		return policyKeys2()
	case at == "policies.*.triggers.*":
		return triggerKeys2()
	case at == "substitution_mappings":
		return substitutionKeys2()
	case at == "workflows.*":
		return workflowKeys2()
	case at == "workflows.*.steps.*":
		return stepKeys2()
	case at == "functions.*":
		return functionKeys2()
	case strings.HasSuffix(at, ".interfaces.*"):
		return ifaceAssignKeys2()
	case strings.HasSuffix(at, ".operations.*"), strings.HasSuffix(at, ".notifications.*"):
		return opAssignKeys2()
	}
	return nil
}

func functionKeynames2(rest []string) []string {
	switch strings.Join(rest, ".") {
	case "*":
		return functionKeys2()
	case "*.signatures":
		return signatureKeys2()
	}
	return nil
}

func typeKeynames2(k core.Kind, rest []string) []string {
	switch at := strings.Join(rest, "."); {
	case at == "":
		return typeKeys2(k)
	case at == "properties.*":
		return propKeys2(true)
	case at == "attributes.*":
		return propKeys2(false)
	case k == core.KNode && at == "capabilities.*":
		return capDefKeys2()
	case k == core.KNode && at == "requirements.*":
		return reqDefKeys2()
	case k == core.KNode && at == "artifacts.*":
		return artifactKeys2()
	case at == "interfaces.*":
		return ifaceDefKeys2()
	case k == core.KInterface && (at == "operations.*" || at == "notifications.*"):
		return opDefKeys2(true)
	case strings.HasSuffix(at, "operations.*"), strings.HasSuffix(at, "notifications.*"):
		return opDefKeys2(false)
	case strings.HasSuffix(at, "entry_schema"), strings.HasSuffix(at, "key_schema"):
		return schemaKeys2()
	}
	return nil
}

func relAssignKeys2() []string {
	return []string{"type", "properties", "attributes", "interfaces", "description", "metadata"}
}

func capAssignKeys2() []string { return []string{"properties", "attributes", "directives", "type"} }

func ifaceAssignKeys2() []string {
	return []string{"inputs", "operations", "notifications", "description", "metadata", "type"}
}

func opAssignKeys2() []string {
	return []string{"implementation", "inputs", "outputs", "description", "metadata"}
}

func relTemplateKeys2() []string {
	return []string{"type", "description", "metadata", "properties", "attributes", "interfaces", "copy"}
}

func groupKeys2() []string {
	return []string{"type", "description", "metadata", "properties", "attributes", "members"}
}

func policyKeys2() []string {
	return []string{"type", "description", "metadata", "properties", "targets", "triggers"}
}

func triggerKeys2() []string {
	return []string{"description", "metadata", "event", "condition", "action"}
}

func functionKeys2() []string { return []string{"signatures", "description", "metadata"} }

func signatureKeys2() []string {
	return []string{"arguments", "optional_arguments", "variadic", "result", "implementation"}
}

func schemaKeys2() []string {
	return []string{"type", "description", "metadata", "validation", "key_schema", "entry_schema"}
}

func capDefKeys2() []string {
	return []string{"type", "description", "metadata", "properties", "attributes", "valid_source_node_types", "valid_relationship_types", "occurrences"}
}

func reqDefKeys2() []string {
	return []string{"description", "metadata", "relationship", "node", "capability", "node_filter", "count_range"}
}

func ifaceDefKeys2() []string {
	return []string{"type", "description", "metadata", "inputs", "operations", "notifications"}
}

// opDefKeys2 are an operation's or notification's definition keynames;
// an interface type's define no implementation (§11.1).
func opDefKeys2(inInterfaceType bool) []string {
	if inInterfaceType {
		return []string{"description", "metadata", "inputs", "outputs"}
	}
	return []string{"description", "metadata", "implementation", "inputs", "outputs"}
}

func substitutionKeys2() []string {
	return []string{"node_type", "substitution_filter", "properties", "attributes", "capabilities", "requirements", "interfaces"}
}

func workflowKeys2() []string {
	return []string{"description", "metadata", "inputs", "precondition", "steps", "implementation", "outputs"}
}

func stepKeys2() []string {
	return []string{"target", "target_relationship", "filter", "activities", "on_success", "on_failure", "operation_host"}
}

// builtinFunctions2 lists the built-in functions of TOSCA 2.0 (§10.2),
// each of which builtinArity2 knows.
func Functions() []string {
	return []string{"and", "available_allocation", "ceil", "concat", "contains", "difference", "equal", "floor",
		"get_artifact", "get_attribute", "get_input", "get_property", "greater_or_equal", "greater_than",
		"has_all_entries", "has_all_keys", "has_any_entry", "has_any_key", "has_entry", "has_key", "has_prefix",
		"has_suffix", "intersection", "join", "length", "less_or_equal", "less_than", "matches", "node_index",
		"not", "or", "product", "quotient", "relationship_index", "remainder", "round", "sum", "token", "union",
		"valid_values", "value", "xor"}
}

// isVersion20 reports whether a tosca_definitions_version value names
// TOSCA 2.0.
func IsVersion(version string) bool { return version == Version }

// sortedKeys returns a sorted copy of keynames without duplicates.
func sortedKeys(keys []string) []string {
	if keys == nil {
		return nil
	}
	out := slices.Clone(keys)
	slices.Sort(out)
	return slices.Compact(out)
}

// Keynames lists, sorted, the keynames of the 2.0 grammar at a place
// (tosca.Keynames documents the places).
func Keynames(place string) []string { return sortedKeys(keynames2(place)) }
