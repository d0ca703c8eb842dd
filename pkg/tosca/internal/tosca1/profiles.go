package tosca1

// Profiles: type sets that a tosca_definitions_version value adds to the
// normative types of the Simple Profile version it builds on. Loaded by
// phase 2 right after the normative types, as normative types (reachable
// by short names, redefinable by the template).

import (
	"embed"
	"path/filepath"
)

// profileFiles is read-only: embed.FS cannot be changed at run time.
//
//go:embed profiles/*.yaml
var profileFiles embed.FS

// profileFor returns the extra type definitions of a profile version
// ("tosca_simple_profile_for_nfv_1_0_0"), or ok false.
func profileFor(version string) (name string, data []byte, ok bool) {
	switch version {
	case "tosca_simple_profile_for_nfv_1_0_0":
		name = "profiles/" + version + ".yaml"
	default:
		return "", nil, false
	}
	data, err := profileFiles.ReadFile(name)
	if err != nil {
		// The file is embedded at build time; it cannot be missing.
		return "", nil, false
	}
	return "<profile>/" + version + ".yaml", data, true
}

// PlacementImport is the import name of xosplan's Placement types
// (profiles/xosplan_placement.yaml), found when no file of that name is on
// disk.
const PlacementImport = "xosplan/placement.yaml"

// placementTypes returns the embedded Placement types for an import of
// PlacementImport, or ok false.
func placementTypes(name string) (string, []byte, bool) {
	if filepath.ToSlash(name) != PlacementImport {
		return "", nil, false
	}
	data, err := profileFiles.ReadFile("profiles/xosplan_placement.yaml")
	if err != nil {
		// The file is embedded at build time; it cannot be missing.
		return "", nil, false
	}
	return "<profile>/" + PlacementImport, data, true
}
