package values

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Primitive types that TOSCA 2.0 adds to those of 1.x (§9.1.1).
const (
	Bytes = "bytes"
	Nil   = "nil"
)

// IsPrimitiveV2 reports whether typ names a built-in primitive or special
// type of TOSCA 2.0 (§9.1) that CoerceV2 checks: string, integer, float,
// boolean, bytes, nil, timestamp and version. list, map and scalar are the
// compiler's (collections and unit types need their schemas).
func IsPrimitiveV2(typ string) bool {
	switch typ {
	case String, Integer, Float, Boolean, Bytes, Nil, Timestamp, Version:
		return true
	}
	return false
}

// rfc3339 is RFC 3339's date-time production: a full date, "T" (either
// case), a full time with an optional fraction, and a zone that is "Z" or
// a numeric offset (TOSCA 2.0 §9.1.2.1).
var rfc3339 = regexp.MustCompile(`^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|[-+][0-9]{2}:[0-9]{2})$`)

// CoerceV2 checks a YAML node against a primitive type of TOSCA 2.0 and
// returns its canonical graph.Value. The rules are those of §9.1, stricter
// than 1.x's (Coerce):
//
//	string     a YAML string: quoted, or plain text that YAML does not read
//	           as another type (§9.1.1.1: "0.1" needs quotes)
//	integer    a YAML integer in int64 range (decimal, 0x, 0o)
//	float      a YAML float, or a YAML integer (§9.1.1.3); the infinities and
//	           not-a-number are floats, a number beyond float64 is not
//	boolean    the unquoted words true and false only (§9.1.1.4)
//	bytes      a YAML string holding standard Base64 (empty allowed), never
//	           the !!binary tag (§9.1.1.5); canonical as written
//	nil        null only (§9.1.1.6); canonical nil
//	timestamp  an RFC 3339 date-time ("T" separator, "Z" or an offset of at
//	           most 23:59, second 60 only for a leap second); the unknown
//	           offset -00:00 is UTC; canonical RFC 3339 (§9.1.2.1). A plain
//	           scalar a YAML 1.1 resolver reads as a timestamp is text in
//	           YAML 1.2 and accepted; one tagged !!timestamp is not, for any
//	           type (§9.1.2.1: implementations "shall not accept this YAML
//	           type")
//	version    as Coerce, but with the minor version: "2" is not a version
//	           (§9.1.2.3: minor_version is mandatory)
//
// A null node is accepted only by nil: strings and bytes cannot be null
// (§9.1.1.1, §9.1.1.5).
func CoerceV2(typ string, n *yamlsrc.Node) (graph.Value, error) {
	if n == nil {
		n = &yamlsrc.Node{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagNull}
	}
	if n.Tagged && n.Tag == yamlsrc.TagTimestamp {
		// §9.1.2.1: "to ensure portability TOSCA implementations shall
		// not accept this YAML type", whatever the type expected; a
		// timestamp is an RFC 3339 string.
		return nil, fmt.Errorf("%s is tagged !!timestamp, a YAML type TOSCA 2.0 does not accept (§9.1.2.1): write the timestamp as a string, without the tag", display(n))
	}
	if typ == Nil {
		if n.IsNull() {
			return nil, nil
		}
		return nil, fmt.Errorf("%s is not null (the only value of type nil)", display(n))
	}
	if n.Kind != yamlsrc.Scalar || n.IsNull() {
		if !IsPrimitiveV2(typ) {
			return nil, fmt.Errorf("%q is not a primitive type", typ)
		}
		return nil, notA(n, typ)
	}
	switch typ {
	case String:
		if isText(n) {
			return n.Value, nil
		}
	case Integer:
		return coerceInteger(n)
	case Float:
		return coerceFloatV2(n)
	case Boolean:
		if !n.Quoted && n.Tag == yamlsrc.TagBool && (n.Value == "true" || n.Value == "false") {
			return n.Value == "true", nil
		}
		if n.Tag == yamlsrc.TagBool {
			return nil, fmt.Errorf("%s is not a boolean: TOSCA 2.0 booleans are the lowercase words true and false", display(n))
		}
	case Bytes:
		if n.Tag == yamlsrc.TagBinary {
			return nil, fmt.Errorf("%s is not bytes: the YAML !!binary type is not accepted; write the Base64 text as a string", display(n))
		}
		if isText(n) {
			if _, err := base64.StdEncoding.DecodeString(n.Value); err != nil {
				return nil, fmt.Errorf("%s is not bytes: it is not Base64 text", display(n))
			}
			return n.Value, nil
		}
	case Timestamp:
		if isText(n) || n.Tag == yamlsrc.TagTimestamp {
			return ParseTimestampV2(n.Value)
		}
	case Version:
		v, err := coerce(Version, n, false)
		if err == nil && VersionWithoutMinor(n.Value) {
			return nil, fmt.Errorf("%s is not a TOSCA version: the minor version is mandatory, major.minor[.fix[.qualifier[-build]]] (§9.1.2.3); write \"%s.0\"", display(n), strings.TrimSpace(n.Value))
		}
		return v, err
	default:
		return nil, fmt.Errorf("%q is not a primitive type", typ)
	}
	return nil, notA(n, typ)
}

// coerceFloatV2 reads a 2.0 float: unlike 1.x's, the YAML 1.2 special
// values .inf, -.inf, +.inf and .nan (in each spelling YAML allows) are
// floats too (§9.1.1.3: "including the standard values for negative
// infinity, positive infinity, and not-a-number").
func coerceFloatV2(n *yamlsrc.Node) (graph.Value, error) {
	if !n.Quoted && n.Tag == yamlsrc.TagFloat {
		if f, ok := n.Float(); ok {
			return f, nil
		}
	}
	return coerceFloat(n)
}

// isText reports whether a scalar is a YAML string (quoted, or plain text
// with the string tag; a plain date reads as text in YAML 1.2).
func isText(n *yamlsrc.Node) bool {
	return n.Tag == yamlsrc.TagStr || (n.Quoted && n.Tag != yamlsrc.TagBinary) || n.Tag == yamlsrc.TagTimestamp
}

// ParseTimestampV2 reads an RFC 3339 date-time (TOSCA 2.0 §9.1.2.1) and
// returns it in canonical RFC 3339 form, the written offset kept (-00:00,
// the unknown offset, becomes UTC).
func ParseTimestampV2(s string) (string, error) {
	m := rfc3339.FindStringSubmatch(s)
	if m == nil {
		return "", fmt.Errorf("%s is not a valid timestamp: TOSCA 2.0 timestamps are RFC 3339 date-times such as 2001-12-14T21:59:43.10-05:00", quote(s))
	}
	norm := strings.ToUpper(s[:10]) + "T" + s[11:]
	norm = strings.TrimSuffix(norm, "z")
	if strings.HasSuffix(norm, "-00:00") {
		norm = strings.TrimSuffix(norm, "-00:00") + "Z"
	} else if m[8] == "z" {
		norm += "Z"
	}
	if z := m[8]; len(z) == 6 && (z[1:3] > "23" || z[4:] > "59") {
		// time-numoffset is a time-hour (00-23) and a time-minute (00-59).
		return "", fmt.Errorf("%s is not a valid timestamp: the zone offset is out of range", quote(s))
	}
	leap := m[6] == "60"
	if leap {
		norm = norm[:17] + "59" + norm[19:]
	}
	t, err := time.Parse(time.RFC3339Nano, norm)
	if err != nil {
		return "", fmt.Errorf("%s is not a valid timestamp: no such date or time", quote(s))
	}
	if !leap {
		return formatTimestamp(t), nil
	}
	// RFC 3339 §5.6-5.7: second 60 is a leap second, which is inserted
	// after 23:59:59 UTC at the end of a month only.
	if u := t.UTC(); u.Hour() != 23 || u.Minute() != 59 || u.Add(time.Second).Day() != 1 {
		return "", fmt.Errorf("%s is not a valid timestamp: a leap second (second 60) is 23:59:60 UTC on the last day of a month", quote(s))
	}
	out := formatTimestamp(t)
	return out[:17] + "60" + out[19:], nil
}

// timestampInstant is the instant a canonical or written timestamp
// stands for, as seconds since 1970 and nanoseconds: a leap second (its
// canonical 2.0 form keeps second 60) comes after every instant of second
// 59 and before the next minute, so its nanoseconds run past 10^9.
func timestampInstant(s string) (int64, int, error) {
	t, err := parseTimestampAny(s)
	if err == nil {
		return t.Unix(), t.Nanosecond(), nil
	}
	if m := rfc3339.FindStringSubmatch(s); m != nil && m[6] == "60" {
		if c, e := ParseTimestampV2(s); e == nil {
			if t, e := time.Parse(time.RFC3339Nano, c[:17]+"59"+c[19:]); e == nil {
				return t.Unix(), t.Nanosecond() + int(time.Second), nil
			}
		}
	}
	return 0, 0, err
}

// CompareVersions orders two written or canonical versions (see Compare).
func CompareVersions(a, b string) (int, error) {
	return Compare(Version, a, b)
}

// CompareTimestamps orders two canonical or written timestamps by instant.
func CompareTimestamps(a, b string) (int, error) {
	return Compare(Timestamp, a, b)
}
