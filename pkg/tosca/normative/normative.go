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
)

// version pairs a tosca_definitions_version value with its file.
type version struct {
	name string
	data string
}

// versions lists the supported versions, oldest first. It is a function and
// not a package variable so that no package-level state exists.
func versions() []version {
	return []version{
		{"tosca_simple_yaml_1_0", v1_0},
		{"tosca_simple_yaml_1_1", v1_1},
		{"tosca_simple_yaml_1_2", v1_2},
		{"tosca_simple_yaml_1_3", v1_3},
	}
}

// For returns the embedded normative type definitions for a
// tosca_definitions_version value ("tosca_simple_yaml_1_0" …
// "tosca_simple_yaml_1_3"). name is a pseudo file name for diagnostics
// ("<normative>/tosca_simple_yaml_1_3.yaml"). data is a fresh copy the caller
// may keep or modify. ok is false for any other value, including the empty
// string; no normalisation of the value is done.
func For(ver string) (name string, data []byte, ok bool) {
	for _, v := range versions() {
		if v.name == ver {
			return "<normative>/" + v.name + ".yaml", []byte(v.data), true
		}
	}
	return "", nil, false
}

// Versions lists the supported tosca_definitions_version values, oldest
// first. The slice is new on each call.
func Versions() []string {
	vs := versions()
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.name
	}
	return out
}
