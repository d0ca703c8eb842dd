package diagview

import (
	"fmt"
	"io"
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
)

// Format names an output format of diagnostics.
type Format string

// The formats Render knows.
const (
	Text   Format = "text"
	JSON   Format = "json"
	SARIF  Format = "sarif"
	GitHub Format = "github"
)

// Formats lists the format names in the order the help text shows them.
func Formats() []string { return []string{string(Text), string(JSON), string(SARIF), string(GitHub)} }

// ParseFormat returns the Format named s, or an error that lists the valid
// names.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if s == f {
			return Format(s), nil
		}
	}
	return "", fmt.Errorf("unknown format %q (want one of: %s)", s, strings.Join(Formats(), ", "))
}

// SourceFunc returns the content of a file named in a diagnostic's range,
// or false when it is not available (snippets are then left out).
type SourceFunc func(file string) ([]byte, bool)

// Options tune the rendering.
type Options struct {
	// Color turns on ANSI colours in the text format. Other formats ignore it.
	Color bool
	// Strict makes warnings fail the verdict, as `--strict` does.
	Strict bool
	// Sources gives file contents for snippets; nil means no snippets.
	Sources SourceFunc
	// ToolVersion is reported in SARIF's tool.driver.version.
	ToolVersion string
	// BaseDir is the absolute directory SARIF URIs are made relative to;
	// "" leaves relative paths as they are and absolute paths as file URIs.
	BaseDir string
	// Skipped is the number of files a folder walk met that are neither
	// TOSCA nor a manifest (config.Result.Skipped): text says so before
	// the verdict, JSON in skipped_count.
	Skipped int
}

// Valid reports the verdict Render prints: no errors, and no warnings when
// strict.
func Valid(ds diag.Diagnostics, strict bool) bool {
	errs, warns := ds.Count()
	return errs == 0 && (!strict || warns == 0)
}

// Render writes the diagnostics to w in format f. The list is rendered in
// the order given; callers sort it first (diag.Diagnostics.Sort) for
// deterministic output.
func Render(w io.Writer, f Format, ds diag.Diagnostics, opt Options) error {
	var err error
	switch f {
	case Text:
		err = renderText(w, ds, opt)
	case JSON:
		err = renderJSON(w, ds, opt)
	case SARIF:
		err = renderSARIF(w, ds, opt)
	case GitHub:
		err = renderGitHub(w, ds, opt)
	default:
		return fmt.Errorf("unknown format %q", f)
	}
	if err != nil {
		return fmt.Errorf("writing %s diagnostics: %w", f, err)
	}
	return nil
}

// plural renders "1 error" / "2 errors".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
