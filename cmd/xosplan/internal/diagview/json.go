package diagview

import (
	"encoding/json"
	"io"

	"github.com/xosplan/xosplan/pkg/diag"
)

// jsonFormatVersion is the version of the JSON contract below. It changes
// in its minor number when fields are added, in its major number when a
// field changes meaning or goes away.
const jsonFormatVersion = "1.1"

// jsonReport is Terraform's `validate -json` document, plus `code` and
// `path` on each diagnostic.
type jsonReport struct {
	FormatVersion string `json:"format_version"`
	Valid         bool   `json:"valid"`
	ErrorCount    int    `json:"error_count"`
	WarningCount  int    `json:"warning_count"`
	// SkippedCount (1.1) is the number of files a folder walk met that
	// are neither TOSCA nor a manifest.
	SkippedCount int              `json:"skipped_count"`
	Diagnostics  []jsonDiagnostic `json:"diagnostics"`
}

type jsonDiagnostic struct {
	Severity string       `json:"severity"`
	Summary  string       `json:"summary"`
	Detail   string       `json:"detail"`
	Range    *diag.Range  `json:"range,omitempty"`
	Snippet  *jsonSnippet `json:"snippet,omitempty"`
	Code     string       `json:"code"`
	Path     string       `json:"path"`
	// Suggestion is the replacement for the text at Range that fixes the
	// problem (a misspelt name's nearest declared one), when there is
	// one obvious fix.
	Suggestion string `json:"suggestion,omitempty"`
}

// jsonSnippet follows Terraform's snippet object: the source line, and the
// highlighted span as byte offsets into it. Context is the YAML path of the
// node at fault (Terraform puts the enclosing block there), null when
// unknown; Values is always empty (Terraform lists expression values).
type jsonSnippet struct {
	Context              *string `json:"context"`
	Code                 string  `json:"code"`
	StartLine            int     `json:"start_line"`
	HighlightStartOffset int     `json:"highlight_start_offset"`
	HighlightEndOffset   int     `json:"highlight_end_offset"`
	Values               []any   `json:"values"`
}

func renderJSON(w io.Writer, ds diag.Diagnostics, opt Options) error {
	errs, warns := ds.Count()
	rep := jsonReport{
		FormatVersion: jsonFormatVersion,
		Valid:         Valid(ds, opt.Strict),
		ErrorCount:    errs,
		WarningCount:  warns,
		SkippedCount:  opt.Skipped,
		Diagnostics:   make([]jsonDiagnostic, 0, len(ds)),
	}
	lines := newLineCache(opt.Sources)
	for _, d := range ds {
		jd := jsonDiagnostic{Severity: d.Severity.String(), Summary: d.Summary, Detail: d.Detail, Code: d.Code, Path: d.Path, Suggestion: d.Suggestion}
		// Terraform's ranges always have positions; a file-level problem
		// (a missing file) has none and names the file in its summary.
		if d.Range.File != "" && !d.Range.Start.IsZero() {
			r := d.Range
			if r.End.IsZero() {
				// A point: Terraform's ranges always have an end.
				r.End = r.Start
			}
			jd.Range = &r
		}
		if sn, ok := lines.snippetOf(d); ok {
			js := &jsonSnippet{Code: sn.Code, StartLine: sn.Line, HighlightStartOffset: sn.HighlightStart,
				HighlightEndOffset: sn.HighlightEnd, Values: []any{}}
			if d.Path != "" {
				path := d.Path
				js.Context = &path
			}
			jd.Snippet = js
		}
		rep.Diagnostics = append(rep.Diagnostics, jd)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
