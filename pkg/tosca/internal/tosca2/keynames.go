package tosca2

// The keynames of TOSCA 2.0 by place, for Keynames: the lists the 2.0
// phases check keys against (keys), named by the place where they
// apply. TestKeynames2AreTheCompilers compiles a file that writes every
// keyname of every place and finds none reported unknown.

import (
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// keynames lists the keynames of the 2.0 grammar at a place (see
// Keynames); nil for a place it does not name.
func keynames(place string) []string {
	parts := strings.Split(place, ".")
	if place == "" {
		return TopLevelKeys()
	}
	switch parts[0] {
	case "service_template":
		return serviceTemplateKeynames(parts[1:])
	case "imports":
		if len(parts) == 1 {
			return importKeys()
		}
	case "repositories":
		if len(parts) == 2 {
			return repositoryKeys()
		}
	case "functions":
		return functionKeynames(parts[1:])
	}
	for k := core.Kind(0); k < core.NumKinds; k++ {
		if parts[0] == k.Section() && len(parts) >= 2 && parts[1] == "*" {
			return typeKeynames(k, parts[2:])
		}
	}
	return nil
}

func serviceTemplateKeynames(rest []string) []string {
	if len(rest) == 0 {
		return serviceTemplateKeys()
	}
	switch at := strings.Join(rest, "."); {
	case at == "inputs.*", at == "outputs.*":
		return paramKeys()
	case at == "node_templates.*":
		return nodeTemplateKeys()
	case at == "node_templates.*.requirements.*":
		return reqAssignKeys()
	case at == "node_templates.*.requirements.*.relationship":
		return relAssignKeys()
	case at == "node_templates.*.capabilities.*":
		return capAssignKeys()
	case at == "node_templates.*.artifacts.*":
		return artifactKeys()
	case at == "relationship_templates.*":
		return relTemplateKeys()
	case at == "groups.*":
		return groupKeys()
	case at == "policies.*":
		return policyKeys()
	case at == "policies.*.triggers.*":
		return triggerKeys()
	case at == "substitution_mappings":
		return substitutionKeys()
	case at == "workflows.*":
		return workflowKeys()
	case at == "workflows.*.steps.*":
		return stepKeys()
	case at == "functions.*":
		return functionKeys()
	case strings.HasSuffix(at, ".interfaces.*"):
		return ifaceAssignKeys()
	case strings.HasSuffix(at, ".operations.*"), strings.HasSuffix(at, ".notifications.*"):
		return opAssignKeys()
	}
	return nil
}

func functionKeynames(rest []string) []string {
	switch strings.Join(rest, ".") {
	case "*":
		return functionKeys()
	case "*.signatures":
		return signatureKeys()
	}
	return nil
}

func typeKeynames(k core.Kind, rest []string) []string {
	switch at := strings.Join(rest, "."); {
	case at == "":
		return typeKeys(k)
	case at == "properties.*":
		return propKeys(true)
	case at == "attributes.*":
		return propKeys(false)
	case k == core.KNode && at == "capabilities.*":
		return capDefKeys()
	case k == core.KNode && at == "requirements.*":
		return reqDefKeys()
	case k == core.KNode && at == "artifacts.*":
		return artifactKeys()
	case at == "interfaces.*":
		return ifaceDefKeys()
	case k == core.KInterface && (at == "operations.*" || at == "notifications.*"):
		return opDefKeys(true)
	case strings.HasSuffix(at, "operations.*"), strings.HasSuffix(at, "notifications.*"):
		return opDefKeys(false)
	case strings.HasSuffix(at, "entry_schema"), strings.HasSuffix(at, "key_schema"):
		return schemaKeys()
	}
	return nil
}

func relAssignKeys() []string {
	return []string{"type", "properties", "attributes", "interfaces", "description", "metadata"}
}

func capAssignKeys() []string { return []string{"properties", "attributes", "directives", "type"} }

func ifaceAssignKeys() []string {
	return []string{"inputs", "operations", "notifications", "description", "metadata", "type"}
}

func opAssignKeys() []string {
	return []string{"implementation", "inputs", "outputs", "description", "metadata"}
}

func relTemplateKeys() []string {
	return []string{"type", "description", "metadata", "properties", "attributes", "interfaces", "copy"}
}

func groupKeys() []string {
	return []string{"type", "description", "metadata", "properties", "attributes", "members"}
}

func policyKeys() []string {
	return []string{"type", "description", "metadata", "properties", "targets", "triggers"}
}

func triggerKeys() []string {
	return []string{"description", "metadata", "event", "condition", "action"}
}

func functionKeys() []string { return []string{"signatures", "description", "metadata"} }

func signatureKeys() []string {
	return []string{"arguments", "optional_arguments", "variadic", "result", "implementation"}
}

func schemaKeys() []string {
	return []string{"type", "description", "metadata", "validation", "key_schema", "entry_schema"}
}

func capDefKeys() []string {
	return []string{"type", "description", "metadata", "properties", "attributes", "valid_source_node_types", "valid_relationship_types", "occurrences"}
}

func reqDefKeys() []string {
	return []string{"description", "metadata", "relationship", "node", "capability", "node_filter", "count_range"}
}

func ifaceDefKeys() []string {
	return []string{"type", "description", "metadata", "inputs", "operations", "notifications"}
}

// opDefKeys are an operation's or notification's definition keynames;
// an interface type's define no implementation (§11.1).
func opDefKeys(inInterfaceType bool) []string {
	if inInterfaceType {
		return []string{"description", "metadata", "inputs", "outputs"}
	}
	return []string{"description", "metadata", "implementation", "inputs", "outputs"}
}

func substitutionKeys() []string {
	return []string{"node_type", "substitution_filter", "properties", "attributes", "capabilities", "requirements", "interfaces"}
}

func workflowKeys() []string {
	return []string{"description", "metadata", "inputs", "precondition", "steps", "implementation", "outputs"}
}

func stepKeys() []string {
	return []string{"target", "target_relationship", "filter", "activities", "on_success", "on_failure", "operation_host"}
}

// Functions lists the built-in functions of TOSCA 2.0 (§10.2),
// each of which builtinArity knows.
func Functions() []string {
	return []string{"and", "available_allocation", "ceil", "concat", "contains", "difference", "equal", "floor",
		"get_artifact", "get_attribute", "get_input", "get_property", "greater_or_equal", "greater_than",
		"has_all_entries", "has_all_keys", "has_any_entry", "has_any_key", "has_entry", "has_key", "has_prefix",
		"has_suffix", "intersection", "join", "length", "less_or_equal", "less_than", "matches", "node_index",
		"not", "or", "product", "quotient", "relationship_index", "remainder", "round", "sum", "token", "union",
		"valid_values", "value", "xor"}
}

// IsVersion reports whether a tosca_definitions_version value names
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
func Keynames(place string) []string { return sortedKeys(keynames(place)) }
