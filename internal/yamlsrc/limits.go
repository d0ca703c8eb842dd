package yamlsrc

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Length limits of DESIGN §7 that depend on what a string means, not on
// the YAML layer (Parse bounds every scalar by Limits.MaxScalarBytes
// already). The front ends (tosca, manifest, placement) apply them with
// NameProblem and TextProblem and report a violation under their own code.
const (
	// MaxNameChars bounds a name (a template, type, property, component,
	// provider … name), counted in characters.
	MaxNameChars = 255
	// MaxDescriptionBytes bounds a description.
	MaxDescriptionBytes = 64 << 10
	// MaxMetadataValueBytes bounds one metadata value: metadata is a label
	// for people and tools, never a payload.
	MaxMetadataValueBytes = 64 << 10
)

// NameProblem returns why s cannot be a name read from a user file, or ""
// when it can: a name has at most MaxNameChars characters and no control
// character, because names become resource addresses and diagnostic text
// that plans and logs print to a terminal. what starts the message, as in
// "node template name".
func NameProblem(what, s string) string {
	switch n := utf8.RuneCountInString(s); {
	case n > MaxNameChars:
		return fmt.Sprintf("%s is %d characters long; the limit is %d", what, n, MaxNameChars)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return fmt.Sprintf("%s %q may not contain control characters", what, s)
	}
	return ""
}

// TextProblem returns why s is too long for a text of at most limit bytes
// (a description, a metadata value), or "" when it fits. what starts the
// message, as in "description".
func TextProblem(what, s string, limit int) string {
	if len(s) > limit {
		return fmt.Sprintf("%s is %d bytes long; the limit is %d (%s)", what, len(s), limit, sizeText(limit))
	}
	return ""
}

// sizeText writes a limit in KiB or MiB when it is a whole number of them.
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
