package diag

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Severity says how bad a diagnostic is. Errors make an input invalid;
// warnings do not (unless the user asks for --strict).
type Severity int

const (
	// Error marks an input that cannot be used as written.
	Error Severity = iota + 1
	// Warning marks a likely mistake or a compatibility fallback.
	Warning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "unknown"
}

// Pos is a position in a source file: 1-based line and column (counted in
// Unicode code points, as editors do) and a 0-based byte offset.
// The zero Pos means "unknown".
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// IsZero reports whether the position is unknown.
func (p Pos) IsZero() bool { return p.Line == 0 }

// Range is a span of a source file. End may equal Start for a point.
type Range struct {
	File  string `json:"filename"`
	Start Pos    `json:"start"`
	End   Pos    `json:"end"`
}

// IsZero reports whether the range names no file and no position.
func (r Range) IsZero() bool { return r.File == "" && r.Start.IsZero() }

// String renders "file:line:col", leaving out what is unknown.
func (r Range) String() string {
	switch {
	case r.File == "" && r.Start.IsZero():
		return ""
	case r.Start.IsZero():
		return r.File
	case r.File == "":
		return fmt.Sprintf("%d:%d", r.Start.Line, r.Start.Column)
	}
	return fmt.Sprintf("%s:%d:%d", r.File, r.Start.Line, r.Start.Column)
}

// Diagnostic is one problem found in user input.
//
// Code is stable across releases (tools and exceptions files match on it);
// Summary is one line; Detail may span several. Path is the YAML path of the
// node at fault, such as "topology_template.node_templates.web.properties.port".
//
// Sensitive marks a diagnostic whose source may hold a secret (a value of
// a sensitive property or input, a line of an inputs file): its Summary
// and Detail never quote the value, and renderers show no source line of
// its Range.
//
// Related lists other places that explain the problem (each hop of a
// dependency cycle, say), in the order a reader follows them; Detail
// says the same in text, so a renderer may show either.
//
// Suggestion, when set, is the one obvious fix: the text that should
// replace what Range covers (the declared name nearest to a misspelt
// one). Summary says it too ("did you mean …?"); the language server
// offers it as a quick fix.
type Diagnostic struct {
	Severity   Severity
	Code       string
	Summary    string
	Detail     string
	Range      Range
	Path       string
	Sensitive  bool
	Related    []Related
	Suggestion string
}

// Related is one place that explains a diagnostic, with what it says
// about it.
type Related struct {
	Range   Range
	Message string
}

// equal reports whether two diagnostics are the same in every field.
func equal(a, b Diagnostic) bool {
	return a.Severity == b.Severity && a.Code == b.Code && a.Summary == b.Summary && a.Detail == b.Detail &&
		a.Range == b.Range && a.Path == b.Path && a.Sensitive == b.Sensitive && slices.Equal(a.Related, b.Related) &&
		a.Suggestion == b.Suggestion
}

// Error renders the diagnostic as "file:line:col: severity: summary".
func (d Diagnostic) Error() string {
	var b strings.Builder
	if s := d.Range.String(); s != "" {
		b.WriteString(s)
		b.WriteString(": ")
	}
	b.WriteString(d.Severity.String())
	b.WriteString(": ")
	b.WriteString(d.Summary)
	return b.String()
}

// Diagnostics is an ordered list of diagnostics. The zero value is an empty
// list ready to use.
type Diagnostics []Diagnostic

// Append adds diagnostics (or the diagnostics of other lists) and returns
// the grown list, in the manner of the built-in append.
func (ds Diagnostics) Append(more ...Diagnostic) Diagnostics { return append(ds, more...) }

// Extend appends every diagnostic of the other lists.
func (ds Diagnostics) Extend(others ...Diagnostics) Diagnostics {
	for _, o := range others {
		ds = append(ds, o...)
	}
	return ds
}

// Errorf appends an error diagnostic.
func (ds Diagnostics) Errorf(r Range, path, code, format string, args ...any) Diagnostics {
	return append(ds, Diagnostic{Severity: Error, Code: code, Summary: fmt.Sprintf(format, args...), Range: r, Path: path})
}

// Warnf appends a warning diagnostic.
func (ds Diagnostics) Warnf(r Range, path, code, format string, args ...any) Diagnostics {
	return append(ds, Diagnostic{Severity: Warning, Code: code, Summary: fmt.Sprintf(format, args...), Range: r, Path: path})
}

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Count returns the number of errors and of warnings.
func (ds Diagnostics) Count() (errs, warnings int) {
	for _, d := range ds {
		switch d.Severity {
		case Error:
			errs++
		case Warning:
			warnings++
		}
	}
	return errs, warnings
}

// Sort orders the list stably by file, line, column, severity (errors
// first), code and summary, and drops exact duplicates, so that output is
// deterministic whatever order the checks ran in.
func (ds Diagnostics) Sort() Diagnostics {
	slices.SortStableFunc(ds, compare)
	return slices.CompactFunc(ds, equal)
}

func compare(a, b Diagnostic) int {
	return cmp.Or(
		cmp.Compare(a.Range.File, b.Range.File),
		cmp.Compare(a.Range.Start.Line, b.Range.Start.Line),
		cmp.Compare(a.Range.Start.Column, b.Range.Start.Column),
		cmp.Compare(a.Severity, b.Severity),
		cmp.Compare(a.Code, b.Code),
		cmp.Compare(a.Summary, b.Summary),
	)
}

// Err turns the errors of the list into one error (nil when there are
// none), for callers at an API edge that want an error value. Warnings are
// left out.
func (ds Diagnostics) Err() error {
	var errs []error
	for _, d := range ds {
		if d.Severity == Error {
			errs = append(errs, d)
		}
	}
	return errors.Join(errs...)
}
