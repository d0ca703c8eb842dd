// Package values checks and normalises TOSCA primitive values and
// evaluates constraint clauses, for every property, input, attribute and
// parameter the TOSCA compiler meets. Lists, maps and complex data types are
// the compiler's: it builds them on top of these primitives.
//
// # Types handled
//
// string, integer, float, boolean, null, timestamp, version, range,
// scalar-unit.size, scalar-unit.time, scalar-unit.frequency and
// scalar-unit.bitrate. TOSCA 1.2 and later let a profile's types be named
// with the "tosca:" namespace prefix, so "tosca:integer" is accepted and
// Canonical maps it to "integer". No version of the Simple Profile (1.0–1.3)
// names a primitive with a "tosca.datatypes." prefix — tosca.datatypes.json
// and tosca.datatypes.xml are data types derived from string, which the
// compiler defines — so such spellings are not primitives here.
//
// # Decisions where the specifications are silent
//
// The YAML text decides the type of a value (YAML 1.2 core schema, as
// internal/yamlsrc resolves it), with these TOSCA-driven allowances:
//   - string: a quoted or plain text scalar. An unquoted number or boolean
//     is not a string (tosca-parser: `"123456789" is not a string`; Puccini
//     agrees). A plain date or timestamp is a string: YAML 1.2 has no
//     timestamp type. Callers that must follow tosca-parser's leniency for a
//     template's own top-level property values use CoerceLenient.
//   - integer: a YAML integer in int64 range (decimal, 0x, 0o, 0b,
//     underscores). A float, even 2.0, and a quoted "2" are errors.
//   - float: a YAML float or integer; .inf and .nan are errors because a
//     plan is JSON.
//   - boolean: YAML true/false in the three spellings YAML 1.2 allows, plus
//     the unquoted YAML 1.1 words yes/no/on/off (in lower, Title or UPPER
//     case) that tosca-parser's YAML 1.1 loader reads as booleans.
//   - timestamp: the YAML 1.1 timestamp grammar (yaml.org/type/timestamp),
//     quoted or not. A missing zone means UTC. The canonical form is RFC
//     3339 with the written offset kept ("2001-12-14T21:59:43.1-05:00");
//     timestamps compare by instant.
//   - version: major.minor[.fix[.qualifier[-build]]]. A YAML float such as
//     6.5 or 14.04 is a version as written (the text, not the float, so
//     14.10 stays "14.10"). A bare major version ("2" or 2) is accepted, as
//     tosca-parser does, and canonicalised to "2.0". Versions compare by
//     numbers; a version with a qualifier is older than the same version
//     without; qualifiers themselves compare lexically (the specification
//     leaves their order to the domain).
//   - range: [lower, upper], integers (negative allowed), upper may be
//     UNBOUNDED, lower ≤ upper.
//   - scalar-unit.*: "<number> <unit>", with or without space. The number
//     is non-negative, decimal, with an optional fraction and exponent; the
//     unit is required. Units are case-insensitive and canonicalised to
//     the spelling of the specification's table ("1.23 gb" → "1.23 GB").
//     For scalar-unit.bitrate the prefix and "ps" are case-insensitive but
//     the b/B that tells bits from bytes is not ("1 kbps" is 1,000 bit/s,
//     "1 kBps" 8,000 bit/s), as in Puccini.
//
// # Constraints
//
// ParseConstraint accepts the operators of TOSCA 1.0–1.3 (1.3 added none
// but schema, and renamed none): equal, greater_than, greater_or_equal,
// less_than, less_or_equal, in_range, valid_values, length, min_length,
// max_length, pattern, schema. Arguments are coerced to the property's
// type, so `in_range: [1 GB, 4 GiB]` compares sizes by magnitude. in_range
// accepts UNBOUNDED for either bound, as tosca-parser does. pattern is
// anchored (the whole value must match, as tosca-parser reads it; 2.0's
// $matches, which funceval evaluates, is not) and uses Go's RE2 syntax
// (CompilePattern): TOSCA names no dialect, so a pattern with a construct
// RE2 lacks (lookaround, backreferences, atomic groups, possessive
// quantifiers, escapes such as \u00e9) is a values.unchecked_pattern
// warning and values are not checked against it; one invalid in every
// dialect (an unbalanced parenthesis or bracket, a quantifier with
// nothing to repeat) stays a values.bad_pattern error. An empty type means "unknown" (node filters read before the
// property's type is resolved): arguments stay plain values and Check
// compares by what the values hold. A schema clause is parsed and kept but not enforced: xosplan does
// not bundle a JSON Schema or XSD validator. A value that is or contains an
// Unknown (known only at apply time) satisfies every constraint at
// validation time.
package values
