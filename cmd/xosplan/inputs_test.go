package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/config"
)

func TestVarValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want any
	}{
		{"8080", int64(8080)},
		{"-1", int64(-1)},
		{"1.5", 1.5},
		{"true", true},
		{"False", false},
		{"hello", "hello"},
		{"'8080'", "8080"},
		{`"quoted text"`, "quoted text"},
		{"", ""},
		{"   ", "   "},
		{"~", nil},
		{"null", nil},
		{"[80, 443]", []any{int64(80), int64(443)}},
		{"{a: 1}", map[string]any{"a": int64(1)}},
		{"a: b", "a: b"},
		{"postgres://u:p@h:5432/db", "postgres://u:p@h:5432/db"},
		{"[unclosed", "[unclosed"},
		{"x=y=z", "x=y=z"},
		{"2024-01-02", "2024-01-02"},
	} {
		if got := varValue(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("varValue(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

func TestInputValues(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mapFile := write("map.yaml", "a: 1\nb: x\na: 2\n")
	jsonFile := write("in.json", `{"a": [1, 2], "b": {"c": true}}`)
	listFile := write("list.yaml", "- a\n")
	emptyFile := write("empty.yaml", "")
	badFile := write("bad.yaml", "a: [\n")
	for _, tc := range []struct {
		name     string
		flags    inputFlags
		want     map[string]any
		diagCode string // a code expected among the diagnostics
		err      string
	}{
		{name: "none", flags: inputFlags{}, want: nil},
		{name: "vars", flags: inputFlags{vars: []string{"a=1", "b=two", " c =", "d=x=y"}},
			want: map[string]any{"a": int64(1), "b": "two", "c": "", "d": "x=y"}},
		{name: "file then var", flags: inputFlags{file: mapFile, vars: []string{"b=y"}},
			want: map[string]any{"a": int64(2), "b": "y"}, diagCode: config.CodeInputsDuplicate},
		{name: "json", flags: inputFlags{file: jsonFile},
			want: map[string]any{"a": []any{int64(1), int64(2)}, "b": map[string]any{"c": true}}},
		{name: "empty file", flags: inputFlags{file: emptyFile}, want: map[string]any{}},
		{name: "list file", flags: inputFlags{file: listFile}, want: map[string]any{}, diagCode: config.CodeInputsNotMap},
		{name: "syntax error", flags: inputFlags{file: badFile}, want: map[string]any{}, diagCode: "yaml.syntax"},
		{name: "missing file", flags: inputFlags{file: filepath.Join(dir, "nope.yaml")}, want: nil, diagCode: config.CodeNotFound},
		{name: "folder", flags: inputFlags{file: dir}, want: nil, diagCode: config.CodeNotRegular},
		{name: "no equals", flags: inputFlags{vars: []string{"novalue"}}, err: "--var wants NAME=VALUE: --var number 1 has no NAME="},
		{name: "no name", flags: inputFlags{vars: []string{"=1"}}, err: "--var wants NAME=VALUE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, diags, err := tc.flags.values(context.Background(), &cli{sources: newSourceCache()})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Values, tc.want) {
				t.Errorf("values = %#v, want %#v", got.Values, tc.want)
			}
			// Each value says where it was given: a --var nowhere, a
			// value of the file in it.
			for name := range got.Values {
				r, ok := got.Ranges[name]
				if !ok || (r.File != "" && r.File != tc.flags.file) {
					t.Errorf("range of %s = %v (given: %v)", name, r, ok)
				}
			}
			found := tc.diagCode == ""
			for _, d := range diags {
				found = found || d.Code == tc.diagCode
			}
			if !found {
				t.Errorf("diagnostics %v lack code %s", diags, tc.diagCode)
			}
		})
	}
}

// FuzzVarValue checks that any --var value is accepted without a panic.
func FuzzVarValue(f *testing.F) {
	for _, s := range []string{"8080", "a: b", "[1, 2", "{x: *a}", "&a [*a]", "\x00", "'", "- - -"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = varValue(s)
	})
}
