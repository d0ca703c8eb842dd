package tosca1

import (
	"slices"
	"strings"
)

// typeKeynames handles the places inside type definitions:
// <kind>_types.*, and their property, capability and requirement
// definitions.
func typeKeynames(place string) ([]string, string) {
	parts := strings.Split(place, ".")
	if len(parts) < 2 || parts[1] != "*" {
		return nil, ""
	}
	var k kind
	found := false
	for i := kind(0); i < numKinds; i++ {
		if i.Section() == parts[0] {
			k, found = i, true
		}
	}
	if !found {
		return nil, ""
	}
	switch rest := strings.Join(parts[2:], "."); rest {
	case "":
		if k == kInterface {
			return ifaceMetaKeys(), "interface"
		}
		return typeKeys(k), ""
	case "properties.*", "attributes.*":
		return propDefKeys(), "definition"
	case "capabilities.*":
		return capDefKeys(), ""
	case "requirements.*":
		return reqDefKeys(), ""
	case "artifacts.*":
		return artifactDefKeys(), ""
	}
	return nil, ""
}

// Places of the grammar that Keynames knows (tosca.PlaceServiceTemplate
// and tosca.PlaceTopology document them).
const (
	PlaceServiceTemplate = ""
	PlaceTopology        = "topology_template"
)

// Keynames lists, sorted, the keynames the 1.x grammar of a version
// allows at a place (tosca.Keynames documents it).
func Keynames(version, place string) []string {
	v, ok := normaliseVersion(version)
	if !ok {
		v = version13
	}
	var keys []string
	where := ""
	switch place {
	case PlaceServiceTemplate:
		keys = TopLevelKeys()
	case PlaceTopology:
		keys, where = topologyKeys(), "topology"
	case "topology_template.node_templates.*":
		keys = nodeTplKeys()
	case "topology_template.node_templates.*.requirements.*":
		keys = reqAssignKeys()
	case "topology_template.relationship_templates.*":
		keys = relTplKeys()
	case "topology_template.groups.*":
		keys = groupKeys()
	case "topology_template.policies.*":
		keys = policyKeys()
	case "topology_template.outputs.*":
		keys = outputKeys()
	case "topology_template.inputs.*":
		keys, where = propDefKeys(), "definition"
	case "topology_template.substitution_mappings":
		keys, where = substitutionKeys(), "substitution"
	case "imports.*":
		keys = longImportKeys()
	default:
		keys, where = typeKeynames(place)
	}
	if keys == nil {
		return nil
	}
	keys = slices.DeleteFunc(slices.Clone(keys), func(k string) bool {
		for _, n := range newerKeynames() {
			if n.where == where && n.key == k && n.since > v {
				return true
			}
		}
		return false
	})
	slices.Sort(keys)
	return slices.Compact(keys)
}

// TypeSection is the section that holds the types named at a place, 1.x
// or 2.0 (tosca.TypeSection documents it).
func TypeSection(place string) string {
	if rest, ok := strings.CutPrefix(place, "service_template"); ok && (rest == "" || rest[0] == '.') {
		place = PlaceTopology + rest
	}
	switch {
	case place == "topology_template.node_templates.*":
		return kNode.Word()
	case place == "topology_template.relationship_templates.*", place == "topology_template.node_templates.*.requirements.*.relationship":
		return kRelationship.Word()
	case place == "topology_template.groups.*":
		return kGroup.Word()
	case place == "topology_template.policies.*":
		return kPolicy.Word()
	case strings.HasSuffix(place, ".properties.*"), strings.HasSuffix(place, ".attributes.*"), place == "topology_template.inputs.*", strings.HasSuffix(place, "entry_schema"):
		return kData.Word()
	case strings.HasSuffix(place, ".capabilities.*"):
		return kCapability.Word()
	case strings.HasSuffix(place, ".artifacts.*"):
		return kArtifact.Word()
	case strings.HasSuffix(place, ".interfaces.*"):
		return kInterface.Word()
	}
	parts := strings.Split(place, ".")
	if len(parts) == 2 && parts[1] == "*" {
		for k := kind(0); k < numKinds; k++ {
			if k.Section() == parts[0] {
				return k.Word()
			}
		}
	}
	return ""
}
