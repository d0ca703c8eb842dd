package config

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
)

// TestReadImportMap reads import map files: relative files are taken from
// the map's folder, absolute ones kept; an empty file maps nothing; an
// entry that is not a URL mapped to a file name, a URL mapped twice and a
// file that is not a map are errors at their position, and the other
// entries are still read.
func TestReadImportMap(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{
		"maps/good.yaml":  "https://example.com/a.yaml: copies/a.yaml\n\"https://example.com/b.yaml?v=1\": /opt/b.yaml\n",
		"maps/good.json":  `{"https://example.com/a.yaml": "a.yaml"}`,
		"maps/empty.yaml": "# nothing mapped yet\n",
		"maps/bad.yaml":   "https://example.com/a.yaml: [a.yaml]\n? [list]\n: b.yaml\nhttps://example.com/c.yaml: ''\nhttps://example.com/d.yaml: d.yaml\nhttps://example.com/d.yaml: e.yaml\nhttps://example.com/f.yaml: f.yaml\n",
		"maps/list.yaml":  "- https://example.com/a.yaml\n",
	})
	maps := filepath.Join(dir, "maps")
	cases := []struct {
		file  string
		want  map[string]string
		codes []string
	}{
		{"good.yaml", map[string]string{"https://example.com/a.yaml": filepath.Join(maps, "copies", "a.yaml"), "https://example.com/b.yaml?v=1": "/opt/b.yaml"}, nil},
		{"good.json", map[string]string{"https://example.com/a.yaml": filepath.Join(maps, "a.yaml")}, nil},
		{"empty.yaml", map[string]string{}, nil},
		{"bad.yaml", map[string]string{"https://example.com/d.yaml": filepath.Join(maps, "e.yaml"), "https://example.com/f.yaml": filepath.Join(maps, "f.yaml")},
			[]string{CodeImportMapBadEntry, CodeImportMapBadEntry, CodeImportMapBadEntry, CodeImportMapDuplicate}},
		{"list.yaml", map[string]string{}, []string{CodeImportMapNotMap}},
		{"missing.yaml", nil, []string{CodeNotFound}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got, diags := ReadImportMap(context.Background(), filepath.Join(maps, c.file))
			var codes []string
			for _, d := range diags.Sort() {
				codes = append(codes, d.Code)
				if d.Range.File != filepath.Join(maps, c.file) {
					t.Errorf("%s names %s", d.Code, d.Range.File)
				}
			}
			if len(codes) != len(c.codes) {
				t.Fatalf("codes = %v, want %v (%v)", codes, c.codes, diags)
			}
			for i := range codes {
				if codes[i] != c.codes[i] {
					t.Errorf("codes = %v, want %v", codes, c.codes)
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("map = %v, want %v", got, c.want)
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%s → %q, want %q", k, got[k], v)
				}
			}
		})
	}
}
