package tosca

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/xosplan/xosplan/internal/nearest"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
)

// maxSuggestDistance is the largest edit distance at which nearestName
// suggests a name, Terraform's threshold for "did you mean".
const maxSuggestDistance = 2

// nearestName returns the name of names nearest to name by edit distance
// (Levenshtein, on runes), "" when none is within maxSuggestDistance; ties
// go to the name sorted first, so the answer does not depend on the order
// given. Names longer than the name limit are not compared, which bounds
// the cost at len(names) × 255².
func nearestName(name string, names []string) string {
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

// undeclaredInputs reports, as errors (Terraform refuses a value for an
// undeclared variable too), each input value given (Options.Inputs) for
// an input the template does not declare, with the nearest declared name
// when one is close. The error is placed where the value was given
// (Options.InputRanges: its entry in an inputs file), else at fallback
// (the template's inputs, or its first line); a --var, which has no place,
// is named as such. The message names the input, never its value: it may
// be a secret. section is the keyname inputs are declared under
// (topology_template or service_template); the diagnostic's path is
// section.inputs.NAME, which UndeclaredInput reads back.
func (c *compiler) undeclaredInputs(declared map[string]bool, section string, fallback diag.Range) {
	for _, name := range slices.Sorted(maps.Keys(c.opts.Inputs)) {
		if declared[name] {
			continue
		}
		at, given := c.opts.InputRanges[name]
		var summary string
		switch {
		case given && at.File == "":
			summary = fmt.Sprintf("--var gives a value for input %q, which the template %s does not declare", name, c.Display(c.root.name))
		default:
			summary = fmt.Sprintf("input value given for %q, which the template %s does not declare", name, c.Display(c.root.name))
		}
		if !given {
			at = fallback
		}
		if s := nearestName(name, slices.Collect(maps.Keys(declared))); s != "" {
			summary += fmt.Sprintf("; did you mean %q?", s)
		}
		c.Diags = c.Diags.Append(diag.Diagnostic{Severity: diag.Error, Code: CodeUnknownInput, Range: at,
			Path: section + ".inputs." + name, Summary: summary,
			Detail: "Declare the input under " + section + ".inputs, or remove the value."})
	}
}

// UndeclaredInput reports whether d is the error Compile gives for a
// value given for an input the template does not declare, and the
// input's name. A loader compiling several templates with one set of
// values uses it to keep only the values no template declares.
func UndeclaredInput(d diag.Diagnostic) (string, bool) {
	if d.Code != CodeUnknownInput || !strings.HasPrefix(d.Detail, "Declare the input under ") {
		return "", false
	}
	for _, section := range []string{"topology_template", "service_template"} {
		if name, ok := strings.CutPrefix(d.Path, section+".inputs."); ok {
			return name, true
		}
	}
	return "", false
}
