// Package textdiff computes line diffs of multi-line strings for plan
// views. It is the only package that imports github.com/sergi/go-diff.
package textdiff

import (
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Op says what happens to a line.
type Op int

// The line operations.
const (
	Equal Op = iota
	Insert
	Delete
)

// Line is one line of a diff, without its newline.
type Line struct {
	Op   Op
	Text string
}

// MaxLines bounds the inputs diffed line by line; longer texts are shown
// as a whole delete followed by a whole insert, so that a huge value
// cannot make planning slow.
const MaxLines = 20_000

// Lines returns the line diff that turns a into b: deletions before
// insertions within each changed region. The result depends only on the
// inputs (no time limit is applied), so the same texts always give the
// same diff.
func Lines(a, b string) []Line {
	la, lb := split(a), split(b)
	if len(la) > MaxLines || len(lb) > MaxLines {
		out := make([]Line, 0, len(la)+len(lb))
		for _, l := range la {
			out = append(out, Line{Delete, l})
		}
		for _, l := range lb {
			out = append(out, Line{Insert, l})
		}
		return out
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	ca, cb, table := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), table)
	var out []Line
	for _, d := range diffs {
		op := Equal
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			op = Insert
		case diffmatchpatch.DiffDelete:
			op = Delete
		}
		for _, l := range split(d.Text) {
			out = append(out, Line{op, l})
		}
	}
	return out
}

// split cuts text into lines; a final newline does not start a new line.
func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
