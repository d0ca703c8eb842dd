package core

import (
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
	if utf8.RuneCountInString(name) > yamlsrc.MaxNameChars {
		return ""
	}
	best, bestDist := "", maxSuggestDistance+1
	for _, n := range slices.Sorted(slices.Values(names)) {
		if n == name || utf8.RuneCountInString(n) > yamlsrc.MaxNameChars {
			continue
		}
		if d := nearest.Distance(name, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// maxSuggestDistance is the largest edit distance at which NearestName
// suggests a name, Terraform's threshold for "did you mean".
const maxSuggestDistance = 2
