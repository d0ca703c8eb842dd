package testutil

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// Severities of a Marker, spelled as diag.Severity.String() spells them so
// that tests compare them without this package importing pkg/diag.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Marker is one inline expectation of a fixture: a `# ERROR: <substring>`
// or `# WARNING: <substring>` comment on the line where the diagnostic is
// expected.
type Marker struct {
	Line     int    // 1-based line of the comment
	Severity string // SeverityError or SeverityWarning
	Text     string // the expected substring of the summary, trimmed
}

var markerRE = regexp.MustCompile(`#\s*(ERROR|WARNING):`)

// Markers returns the markers of a fixture's text in line order, several
// per line when a line carries several (each text then ends where the
// next marker begins).
func Markers(data []byte) []Marker {
	var out []Marker
	for i, line := range strings.Split(string(data), "\n") {
		found := markerRE.FindAllStringSubmatchIndex(line, -1)
		for j, m := range found {
			end := len(line)
			if j+1 < len(found) {
				end = found[j+1][0]
			}
			out = append(out, Marker{
				Line:     i + 1,
				Severity: strings.ToLower(line[m[2]:m[3]]),
				Text:     strings.TrimSpace(line[m[1]:end]),
			})
		}
	}
	return out
}

// ErrorLines returns the text of the error markers of a fixture by line,
// for tests that expect at most one error per line (the last marker of a
// line wins).
func ErrorLines(data []byte) map[int]string {
	out := map[int]string{}
	for _, m := range Markers(data) {
		if m.Severity == SeverityError {
			out[m.Line] = m.Text
		}
	}
	return out
}

// FileMarkers reads the file at path and returns its markers; a file that
// cannot be read fails the test.
func FileMarkers(t testing.TB, path string) []Marker {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Markers(data)
}
