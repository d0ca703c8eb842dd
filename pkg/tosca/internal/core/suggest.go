package core

import (
	"fmt"
	"iter"
	"slices"
	"unicode/utf8"

	"github.com/xosplan/xosplan/internal/nearest"
	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// NearestName returns the name of names nearest to name by edit distance
// (Levenshtein, on runes), "" when none is within maxSuggestDistance; ties
// go to the name sorted first, so the answer does not depend on the order
// given. Names longer than the name limit are not compared, which bounds
// the cost at len(names) × 255².
func NearestName(name string, names []string) string {
	budget := -1
	return nearestName(name, names, &budget)
}

// nearestName is NearestName spending at most *budget cells of the
// distance table (the product of the two names' lengths per comparison;
// a negative budget is unbounded), and giving up with "" when it runs
// out. Names whose lengths differ by more than maxSuggestDistance are not
// compared: they cannot be near enough.
func nearestName(name string, names []string, budget *int) string {
	ln := utf8.RuneCountInString(name)
	if ln > yamlsrc.MaxNameChars {
		return ""
	}
	best, bestDist := "", maxSuggestDistance+1
	for _, n := range slices.Sorted(slices.Values(names)) {
		l := utf8.RuneCountInString(n)
		if n == name || l > yamlsrc.MaxNameChars || l-ln > maxSuggestDistance || ln-l > maxSuggestDistance {
			continue
		}
		if *budget >= 0 {
			if *budget < l*ln {
				return ""
			}
			*budget -= l * ln
		}
		if d := nearest.Distance(name, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// MaxSuggestCells bounds the work of one compile's "did you mean"
// searches (SuggestLast): the cells of the edit-distance tables they fill,
// the product of the two names' lengths per comparison. 20,000,000 cells
// take about 50 ms; a file with more misspelt names than that allows gets
// its later diagnostics without a suggestion.
const MaxSuggestCells = 20_000_000

// SuggestLast gives the diagnostic just reported, about name, the
// candidate nearest to it within maxSuggestDistance: "; did you mean
// %q?" in its summary, and the Suggestion (the language server's quick
// fix). A sensitive diagnostic gets none: it quotes nothing.
func (c *Session) SuggestLast(name string, candidates iter.Seq[string]) {
	if len(c.Diags) == 0 || c.Diags[len(c.Diags)-1].Sensitive {
		return
	}
	budget := MaxSuggestCells - c.suggestCells
	if budget <= 0 {
		return
	}
	var names []string
	for n := range candidates {
		names = append(names, n)
	}
	s := nearestName(name, names, &budget)
	c.suggestCells = MaxSuggestCells - budget
	if s != "" {
		d := &c.Diags[len(c.Diags)-1]
		d.Summary += fmt.Sprintf("; did you mean %q?", s)
		d.Suggestion = s
	}
}

// maxSuggestDistance is the largest edit distance at which NearestName
// suggests a name, Terraform's threshold for "did you mean".
const maxSuggestDistance = 2
