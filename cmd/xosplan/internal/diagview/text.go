package diagview

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	"github.com/xosplan/xosplan/pkg/diag"
)

// ANSI styles of the text format, used only when Options.Color is set.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiBlue   = "\x1b[1;34m"
	ansiGreen  = "\x1b[1;32m"
)

type painter bool

func (p painter) paint(style, s string) string {
	if !p || s == "" {
		return s
	}
	return style + s + ansiReset
}

func severityStyle(s diag.Severity) string {
	if s == diag.Error {
		return ansiRed
	}
	return ansiYellow
}

// renderText writes each diagnostic as
//
//	file:line:col: error: summary [code]
//	  detail
//	   |
//	12 |     type: tosca.nodes.Nope
//	   |           ^~~~~~~~~~~~~~~~
//
// (the layout of rustc and HCL: a compiler-style first line that editors and
// CI problem matchers recognise), then one verdict line.
func renderText(w io.Writer, ds diag.Diagnostics, opt Options) error {
	bw := bufio.NewWriter(w)
	p := painter(opt.Color)
	lines := newLineCache(opt.Sources)
	for _, d := range ds {
		if loc := termsafe.String(d.Range.String()); loc != "" {
			bw.WriteString(p.paint(ansiBold, loc+":"))
			bw.WriteString(" ")
		}
		bw.WriteString(p.paint(severityStyle(d.Severity), d.Severity.String()+":"))
		bw.WriteString(" ")
		bw.WriteString(p.paint(ansiBold, termsafe.String(d.Summary)))
		if d.Code != "" {
			bw.WriteString(" [" + d.Code + "]")
		}
		bw.WriteString("\n")
		if d.Detail != "" {
			for _, l := range strings.Split(strings.TrimRight(d.Detail, "\n"), "\n") {
				bw.WriteString(strings.TrimRight("  "+termsafe.String(l), " ") + "\n")
			}
		}
		if sn, ok := lines.snippetOf(d); ok {
			writeSnippet(bw, p, severityStyle(d.Severity), sn)
		}
		bw.WriteString("\n")
	}
	if opt.Skipped > 0 {
		bw.WriteString(skippedLine(opt.Skipped) + "\n")
	}
	bw.WriteString(verdictLine(ds, opt.Strict, p))
	bw.WriteString("\n")
	return bw.Flush()
}

func writeSnippet(bw *bufio.Writer, p painter, style string, sn snippet) {
	num := strconv.Itoa(sn.Line)
	pad := strings.Repeat(" ", len(num))
	bw.WriteString(p.paint(ansiBlue, pad+" |") + "\n")
	bw.WriteString(p.paint(ansiBlue, num+" |"))
	if sn.Code != "" {
		bw.WriteString(" " + sn.Code)
	}
	bw.WriteString("\n")
	// Tabs before the highlight are copied so that the caret lines up
	// whatever the terminal's tab width.
	var indent strings.Builder
	for _, r := range sn.Code[:sn.HighlightStart] {
		if r == '\t' {
			indent.WriteByte('\t')
		} else {
			indent.WriteByte(' ')
		}
	}
	width := utf8.RuneCountInString(sn.Code[sn.HighlightStart:sn.HighlightEnd])
	marker := "^" + strings.Repeat("~", max(width-1, 0))
	bw.WriteString(p.paint(ansiBlue, pad+" |") + " " + indent.String() + p.paint(style, marker) + "\n")
}

// skippedLine says how many files of a folder walk were left unchecked.
func skippedLine(n int) string {
	if n == 1 {
		return "Skipped 1 file that is neither TOSCA nor a manifest."
	}
	return "Skipped " + plural(n, "file") + " that are neither TOSCA nor a manifest."
}

// verdictLine is Terraform's wording for a valid configuration, and an
// error/warning count otherwise.
func verdictLine(ds diag.Diagnostics, strict bool, p painter) string {
	errs, warns := ds.Count()
	switch {
	case Valid(ds, strict) && warns == 0:
		return p.paint(ansiGreen, "Success!") + " The configuration is valid."
	case Valid(ds, strict):
		verb := "were"
		if warns == 1 {
			verb = "was"
		}
		return p.paint(ansiGreen, "Success!") + " The configuration is valid, but there " + verb + " " +
			plural(warns, "warning") + " as shown above."
	case errs == 0:
		return plural(errs, "error") + ", " + plural(warns, "warning") + " (warnings fail the check with --strict)"
	}
	return plural(errs, "error") + ", " + plural(warns, "warning")
}
