package values

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
)

// versionRE is TOSCA's version grammar
// <major>.<minor>[.<fix>[.<qualifier>[-<build>]]], with minor made optional
// as tosca-parser accepts ("2" means "2.0"); see VersionWithoutMinor.
var versionRE = regexp.MustCompile(`^([0-9]+)(?:\.([0-9]+)(?:\.([0-9]+)(?:\.([0-9A-Za-z_]+)(?:-([0-9]+))?)?)?)?$`)

// VersionWithoutMinor reports whether text is a version written as its
// major number alone ("2"), which Coerce reads as major.0 but the grammar
// does not allow: 1.3 §3.2.2 and 2.0 §9.1.2.3 (csd07 and the OASIS
// Standard alike) make minor_version mandatory. CoerceV2 rejects it; the
// 1.x compiler warns.
func VersionWithoutMinor(text string) bool {
	m := versionRE.FindStringSubmatch(strings.TrimSpace(text))
	return m != nil && m[2] == ""
}

// version is a parsed TOSCA version. Numbers stay text so that any number
// of digits compares correctly.
type version struct {
	major, minor, fix, qualifier, build string
}

// parseVersion reads a version as written (surrounding space ignored).
func parseVersion(text string) (version, error) {
	m := versionRE.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return version{}, fmt.Errorf("%s is not a valid version: expected major.minor[.fix[.qualifier[-build]]]", quote(text))
	}
	v := version{major: m[1], minor: m[2], fix: m[3], qualifier: m[4], build: m[5]}
	if v.minor == "" {
		v.minor = "0"
	}
	return v, nil
}

// canonical renders the version with its components as written.
func (v version) canonical() string {
	var b strings.Builder
	b.WriteString(v.major + "." + v.minor)
	if v.fix != "" {
		b.WriteString("." + v.fix)
	}
	if v.qualifier != "" {
		b.WriteString("." + v.qualifier)
	}
	if v.build != "" {
		b.WriteString("-" + v.build)
	}
	return b.String()
}

// compareVersions orders by major, minor, fix (missing = 0); then a
// version with a qualifier is older than one without; equal qualifiers
// compare by build (missing = 0), different ones lexically.
func compareVersions(a, b version) int {
	if c := cmp.Or(compareDigits(a.major, b.major), compareDigits(a.minor, b.minor), compareDigits(a.fix, b.fix)); c != 0 {
		return c
	}
	switch {
	case a.qualifier == b.qualifier:
		return compareDigits(a.build, b.build)
	case a.qualifier == "":
		return 1
	case b.qualifier == "":
		return -1
	}
	return strings.Compare(a.qualifier, b.qualifier)
}

// compareDigits compares two decimal digit strings numerically ("" = 0).
func compareDigits(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		return cmp.Compare(len(a), len(b))
	}
	return strings.Compare(a, b)
}
