package core

// Kind is a kind of TOSCA type; both grammar generations have the same
// eight.
type Kind uint8

// The kinds of type, in the order of their sections.
const (
	KArtifact Kind = iota
	KData
	KCapability
	KInterface
	KRelationship
	KNode
	KGroup
	KPolicy
	NumKinds
)

// Section is the keyname of the file section that defines types of the
// kind (data_types).
func (k Kind) Section() string {
	return [...]string{"artifact_types", "data_types", "capability_types", "interface_types",
		"relationship_types", "node_types", "group_types", "policy_types"}[k]
}

// Word names the kind in messages (data type).
func (k Kind) Word() string {
	return [...]string{"artifact type", "data type", "capability type", "interface type",
		"relationship type", "node type", "group type", "policy type"}[k]
}

// NormPrefix is the prefix that a normative type's short name drops.
func (k Kind) NormPrefix() string {
	return [...]string{"tosca.artifacts.", "tosca.datatypes.", "tosca.capabilities.", "tosca.interfaces.",
		"tosca.relationships.", "tosca.nodes.", "tosca.groups.", "tosca.policies."}[k]
}
