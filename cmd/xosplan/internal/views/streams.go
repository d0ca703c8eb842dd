package views

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/diagview"
	"github.com/xosplan/xosplan/pkg/diag"
)

// Streams is the process's side of every view: where it writes and how.
type Streams struct {
	Stdout io.Writer
	Stderr io.Writer
	// Color reports whether output to w may be coloured.
	Color func(w io.Writer) bool
	// Sources gives the text of the files diagnostics name, for snippets.
	Sources func(path string) ([]byte, bool)
	// Version is xosplan's version, for JSON streams and SARIF.
	Version string
	// BaseDir is the folder the names of files in diagnostics are shown
	// relative to.
	BaseDir string
	// Now stamps JSON events.
	Now func() time.Time
}

// diagnostics writes diags in format to w, as validate shows them.
func (s *Streams) diagnostics(w io.Writer, format diagview.Format, diags diag.Diagnostics, strict bool) error {
	return diagview.Render(w, format, diags, s.renderOptions(w, strict, 0))
}

// renderOptions are the diagview options of output to w.
func (s *Streams) renderOptions(w io.Writer, strict bool, skipped int) diagview.Options {
	return diagview.Options{
		Color:       s.Color(w),
		Strict:      strict,
		Sources:     s.Sources,
		ToolVersion: s.Version,
		BaseDir:     s.BaseDir,
		Skipped:     skipped,
	}
}

// problems writes diagnostics as validate's text view does, to w, without
// validate's closing verdict ("Success! The configuration is valid…"),
// which would misreport a plan: diagview always ends its text with that
// one line, so it is cut off here. Nothing is written for none.
func (s *Streams) problems(w io.Writer, diags diag.Diagnostics) error {
	if len(diags) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if err := s.diagnostics(&buf, diagview.Text, diags, false); err != nil {
		return err
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if i := bytes.LastIndexByte(out, '\n'); i >= 0 {
		out = out[:i+1]
	}
	_, err := w.Write(bytes.TrimRight(out, "\n"))
	if err == nil {
		_, err = io.WriteString(w, "\n")
	}
	return err
}

// warn writes one warning line to stderr, whatever the output format:
// something the person running xosplan should know that is not a
// diagnostic of the configuration.
func (s *Streams) warn(format string, args ...any) {
	fmt.Fprintf(s.Stderr, "Warning: "+format+"\n", args...)
}
