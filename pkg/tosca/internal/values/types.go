package values

import "strings"

// Canonical names of the primitive and special types handled here.
const (
	String          = "string"
	Integer         = "integer"
	Float           = "float"
	Boolean         = "boolean"
	Null            = "null"
	Timestamp       = "timestamp"
	Version         = "version"
	Range           = "range"
	ScalarSize      = "scalar-unit.size"
	ScalarTime      = "scalar-unit.time"
	ScalarFrequency = "scalar-unit.frequency"
	ScalarBitrate   = "scalar-unit.bitrate"
)

// Unbounded is the upper bound of a range (and either bound of in_range)
// that has no limit.
const Unbounded = "UNBOUNDED"

// namespacePrefix is the TOSCA 1.2+ shorthand namespace of the profile's
// own types.
const namespacePrefix = "tosca:"

// IsPrimitive reports whether typ names a TOSCA primitive or special type
// handled by this package: string integer float boolean timestamp null
// version range scalar-unit.size scalar-unit.time scalar-unit.frequency
// scalar-unit.bitrate, each also with the "tosca:" namespace prefix of TOSCA
// 1.2 and later. See the package documentation for the spellings left out.
func IsPrimitive(typ string) bool {
	switch strings.TrimPrefix(typ, namespacePrefix) {
	case String, Integer, Float, Boolean, Null, Timestamp, Version, Range,
		ScalarSize, ScalarTime, ScalarFrequency, ScalarBitrate:
		return true
	}
	return false
}

// Primitives lists the primitive type names IsPrimitive accepts, in
// their canonical spelling, and the list and map collections, sorted.
func Primitives() []string {
	return []string{Boolean, Float, Integer, "list", "map", Null, Range, ScalarBitrate, ScalarFrequency,
		ScalarSize, ScalarTime, String, Timestamp, Version}
}

// Canonical returns the canonical name of a primitive type name
// ("tosca:integer" → "integer"). A name that IsPrimitive rejects is
// returned unchanged.
func Canonical(typ string) string {
	if IsPrimitive(typ) {
		return strings.TrimPrefix(typ, namespacePrefix)
	}
	return typ
}

// isOrdered reports whether values of the canonical type have an order
// that Compare knows.
func isOrdered(typ string) bool {
	switch typ {
	case String, Integer, Float, Timestamp, Version, ScalarSize, ScalarTime, ScalarFrequency, ScalarBitrate:
		return true
	}
	return false
}

// article returns the type name with its indefinite article, for messages
// like `"two" is not an integer`.
func article(typ string) string {
	switch typ {
	case Integer:
		return "an integer"
	case Null:
		return "null"
	case String, Float, Boolean:
		return "a " + typ
	}
	return "a valid " + typ
}
