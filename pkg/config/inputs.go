package config

import (
	"context"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
)

// Diagnostic codes of inputs files; the package documentation explains
// each.
const (
	CodeInputsNotMap    = "inputs.not_a_map"
	CodeInputsDuplicate = "inputs.duplicate_key"
)

// ReadInputs reads a file of TOSCA input values: a YAML (or JSON) map of
// input names to values; an empty file gives no values. The file is one
// the person running xosplan named, so it is read with ReadFile's checks
// but not confined to a root. The values are nil when the file cannot be
// read, and hold what could be read otherwise; ranges holds where each
// value is (Options.InputRanges), so that a problem with one is reported
// in the file, not at the template.
//
// Every diagnostic is Sensitive: any value in the file may be a secret,
// and which are is known only once a template is compiled, so no line of
// it is ever shown (Load marks the compilers' diagnostics in the file so
// too).
func ReadInputs(ctx context.Context, path string) (vals map[string]any, ranges map[string]diag.Range, diags diag.Diagnostics) {
	data, problem := ReadFile(ctx, path, nil)
	if problem != nil {
		return nil, nil, diags.Append(*problem)
	}
	vals, ranges = map[string]any{}, map[string]diag.Range{}
	root, parseDiags := yamlsrc.Parse(path, data, yamlsrc.Limits{})
	diags = diags.Extend(parseDiags)
	switch {
	case parseDiags.HasErrors():
	case root.IsNull():
		// An empty inputs file gives no values.
	case root.Kind != yamlsrc.Mapping:
		diags = diags.Errorf(root.Range, "", CodeInputsNotMap, "an inputs file holds a map of input names to values, found %s", root.Describe())
	default:
		for _, dup := range root.DuplicateKeys() {
			diags = diags.Warnf(dup.Key.Range, dup.Key.Value, CodeInputsDuplicate, "input %q is given more than once; the last value wins", dup.Key.Value)
		}
		for _, p := range root.Pairs() {
			vals[p.Key.Value] = p.Value.Interface()
			ranges[p.Key.Value] = p.Value.Range
		}
	}
	for i := range diags {
		diags[i].Sensitive = true
	}
	return vals, ranges, diags
}
