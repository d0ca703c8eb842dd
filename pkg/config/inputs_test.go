package config

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
)

func TestReadInputs(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{
		"map.yaml":   "a: 1\nb: x\na: 2\n",
		"in.json":    `{"a": [1, 2], "b": {"c": true}}`,
		"list.yaml":  "- a\n",
		"empty.yaml": "",
		"bad.yaml":   "a: [\n",
	})
	for _, tc := range []struct {
		file      string
		want      map[string]any
		code      string // the one code expected among the diagnostics; "" = none
		sensitive bool
	}{
		{"map.yaml", map[string]any{"a": int64(2), "b": "x"}, CodeInputsDuplicate, true},
		{"in.json", map[string]any{"a": []any{int64(1), int64(2)}, "b": map[string]any{"c": true}}, "", true},
		{"empty.yaml", map[string]any{}, "", true},
		{"list.yaml", map[string]any{}, CodeInputsNotMap, true},
		{"bad.yaml", map[string]any{}, "yaml.syntax", true},
		// A file that cannot be read shows nothing of it anyway.
		{"nope.yaml", nil, CodeNotFound, false},
		{".", nil, CodeNotRegular, false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			got, ranges, diags := ReadInputs(context.Background(), path)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("values = %#v, want %#v", got, tc.want)
			}
			// Each value's place, so that a problem with it is reported
			// there: the last of duplicates, whose value wins.
			for k := range got {
				if r := ranges[k]; r.File != path || r.Start.Line == 0 {
					t.Errorf("range of %s = %v", k, r)
				}
			}
			if tc.file == "map.yaml" && ranges["a"].Start.Line != 3 {
				t.Errorf("range of a = %v, want line 3", ranges["a"])
			}
			if tc.code == "" && len(diags) != 0 || tc.code != "" && (len(diags) != 1 || diags[0].Code != tc.code) {
				t.Fatalf("diagnostics = %v, want %q", diags, tc.code)
			}
			for _, d := range diags {
				if d.Sensitive != tc.sensitive {
					t.Errorf("%s: Sensitive = %v, want %v", d.Code, d.Sensitive, tc.sensitive)
				}
			}
		})
	}
}
