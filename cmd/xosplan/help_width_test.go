package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// maxHelpLine is the widest line a command's long help may have: it is
// printed as written, so a longer line wraps in a terminal of 100 columns
// and the paragraph reads ragged.
const maxHelpLine = 100

// TestHelpLinesFit: every line of every command's long help fits in
// maxHelpLine columns (examples are commands to copy, kept whole).
func TestHelpLinesFit(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for i, l := range strings.Split(c.Long, "\n") {
			if n := utf8.RuneCountInString(l); n > maxHelpLine {
				t.Errorf("%s --help: line %d is %d columns wide (at most %d): %q", c.CommandPath(), i+1, n, maxHelpLine, l)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(referenceRoot())
}
