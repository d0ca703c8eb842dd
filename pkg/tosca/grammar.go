package tosca

import (
	"github.com/xosplan/xosplan/pkg/tosca/internal/tosca1"
	"github.com/xosplan/xosplan/pkg/tosca/internal/tosca2"
	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
)

// Places of the grammar that Keynames knows, named by the YAML path that
// leads to them with names replaced by "*": "" (the service template),
// "topology_template", "topology_template.node_templates.*", "node_types.*",
// "node_types.*.properties.*", and so on.
const (
	PlaceServiceTemplate = tosca1.PlaceServiceTemplate
	PlaceTopology        = tosca1.PlaceTopology
)

// Keynames lists, sorted, the keynames the grammar of a TOSCA version
// (a tosca_definitions_version value; "" for the newest 1.x xosplan
// reads) allows at a place, named by the YAML path of the map whose keys
// they are with each name replaced by "*" (see PlaceServiceTemplate):
// those a later version introduced are left out. TOSCA 2.0 (tosca_2_0)
// has its own places: "service_template", "service_template.node_templates.*",
// "imports" (a list of import maps), "functions.*", and so on. A place the
// grammar does not name, or whose keys are names (node_templates), gives
// nil. The lists are the compiler's own, so an editor's completion
// offers exactly what Compile accepts.
func Keynames(version, place string) []string {
	if tosca2.IsVersion(version) {
		return tosca2.Keynames(place)
	}
	return tosca1.Keynames(version, place)
}

// Versions lists the tosca_definitions_version values the compiler
// reads, as written: 1.0 to 1.3 and 2.0.
func Versions() []string { return append(tosca1.SupportedVersions(), tosca2.Version) }

// IsVersion2 reports whether version (a tosca_definitions_version) is
// TOSCA 2.0's, which the 2.0 front end compiles.
func IsVersion2(version string) bool { return tosca2.IsVersion(version) }

// Functions lists, sorted, the built-in functions a value of a TOSCA
// version may call: 1.x's intrinsic functions (those evalFunction
// knows), or TOSCA 2.0's, written without their $ (§10.2).
func Functions(version string) []string {
	if tosca2.IsVersion(version) {
		return tosca2.Functions()
	}
	return []string{"concat", "get_artifact", "get_attribute", "get_input", "get_nodes_of_type",
		"get_operation_output", "get_property", "join", "token"}
}

// PrimitiveTypes lists the type names a property, attribute, input or
// schema definition of a 1.x template may give besides data types: the
// primitive types and the list and map collections, sorted. TOSCA 2.0's
// built-in types are data types of its index (CompileIndexed).
func PrimitiveTypes() []string { return values.Primitives() }

// TypeSection is the section of a service template that holds the types
// a template or definition names after type: or derived_from: at the
// place (as in Keynames; a TOSCA 2.0 place under service_template as its
// 1.x twin under topology_template), and the kind of those types as
// Symbol.Type gives it ("node type", …); "" when the place names no type.
func TypeSection(place string) string { return tosca1.TypeSection(place) }
