package normative

import _ "embed"

// The embedded files are strings, not byte slices, so that no caller can
// change what another caller reads: For hands out a fresh copy.
var (
	//go:embed tosca_simple_yaml_1_0.yaml
	v1_0 string
	//go:embed tosca_simple_yaml_1_1.yaml
	v1_1 string
	//go:embed tosca_simple_yaml_1_2.yaml
	v1_2 string
	//go:embed tosca_simple_yaml_1_3.yaml
	v1_3 string
	//go:embed tosca_simple_profile_for_nfv_1_0_0.yaml
	nfv1_0_0 string
	//go:embed tosca_simple_yaml_non_normative.yaml
	nonNormative string
	//go:embed xosplan_types.yaml
	xosplanTypes string
)

// definitions pairs a tosca_definitions_version value with its file.
type definitions struct {
	name string
	data string
	// profile marks a profile built on a Simple Profile version (NFV)
	// rather than a version of the Simple Profile itself.
	profile bool
}

// all lists the embedded definitions, the Simple Profile versions oldest
// first. It is a function and not a package variable so that no
// package-level state exists.
func all() []definitions {
	return []definitions{
		{"tosca_simple_yaml_1_0", v1_0, false},
		{"tosca_simple_yaml_1_1", v1_1, false},
		{"tosca_simple_yaml_1_2", v1_2, false},
		{"tosca_simple_yaml_1_3", v1_3, false},
		{"tosca_simple_profile_for_nfv_1_0_0", nfv1_0_0, true},
	}
}

// For returns the embedded normative type definitions for a
// tosca_definitions_version value: "tosca_simple_yaml_1_0" …
// "tosca_simple_yaml_1_3", or a profile listed by Profiles, whose file holds
// its Simple Profile version's types as well. name is a pseudo file name for
// diagnostics ("<normative>/tosca_simple_yaml_1_3.yaml"). data is a fresh
// copy the caller may keep or modify. ok is false for any other value,
// including the empty string; the value is matched exactly.
func For(version string) (name string, data []byte, ok bool) {
	for _, d := range all() {
		if d.name == version {
			return "<normative>/" + d.name + ".yaml", []byte(d.data), true
		}
	}
	return "", nil, false
}

// Versions lists the supported Simple Profile tosca_definitions_version
// values, oldest first. The slice is new on each call.
func Versions() []string {
	return names(false)
}

// Profiles lists the other tosca_definitions_version values For knows:
// profiles built on a Simple Profile version
// ("tosca_simple_profile_for_nfv_1_0_0", on 1.0). The slice is new on each
// call.
func Profiles() []string {
	return names(true)
}

func names(profile bool) []string {
	var out []string
	for _, d := range all() {
		if d.profile == profile {
			out = append(out, d.name)
		}
	}
	return out
}

// NonNormative returns the non-normative types of the Simple Profile (its
// chapter "Non-normative type definitions": MySQL, Apache, WordPress,
// Node.js, Docker), written in tosca_simple_yaml_1_3 and valid for every
// 1.x version. name is a pseudo file name for diagnostics; data is a fresh
// copy the caller may keep or modify.
func NonNormative() (name string, data []byte) {
	return "<normative>/tosca_simple_yaml_non_normative.yaml", []byte(nonNormative)
}

// NonNormativeTypes lists the full names of the types NonNormative
// defines, in the order the file defines them. The slice is new on each
// call.
func NonNormativeTypes() []string {
	return []string{
		"tosca.artifacts.Deployment.Image.Container.Docker",
		"tosca.artifacts.Deployment.Image.VM.ISO",
		"tosca.artifacts.Deployment.Image.VM.QCOW2",
		"tosca.capabilities.Container.Docker",
		"tosca.nodes.Container.Application.Docker",
		"tosca.nodes.Container.Runtime.Docker",
		"tosca.nodes.DBMS.MySQL",
		"tosca.nodes.Database.MySQL",
		"tosca.nodes.WebApplication.WordPress",
		"tosca.nodes.WebServer.Apache",
		"tosca.nodes.WebServer.Nodejs",
	}
}

// Xosplan returns xosplan's own types (xosplan.policies.ModelPolicy,
// xosplan.interfaces.Health, xosplan.interfaces.Lookup), written in tosca_simple_yaml_1_3 and valid
// for every 1.x version, which the compiler loads when a template names
// one without defining it. name is a pseudo file name for diagnostics;
// data is a fresh copy.
func Xosplan() (name string, data []byte) {
	return "<normative>/xosplan_types.yaml", []byte(xosplanTypes)
}

// XosplanTypes lists the full names of the types Xosplan defines. The
// slice is new on each call.
func XosplanTypes() []string {
	return []string{"xosplan.interfaces.Health", "xosplan.interfaces.Lookup", "xosplan.policies.ModelPolicy"}
}
