package diag

import (
	"strings"
	"testing"
)

func TestSortAndCount(t *testing.T) {
	var ds Diagnostics
	ds = ds.Warnf(Range{File: "b.yaml", Start: Pos{Line: 1, Column: 1}}, "", "W1", "warn")
	ds = ds.Errorf(Range{File: "a.yaml", Start: Pos{Line: 9, Column: 2}}, "", "E2", "late")
	ds = ds.Errorf(Range{File: "a.yaml", Start: Pos{Line: 3, Column: 7}}, "x.y", "E1", "early")
	ds = ds.Errorf(Range{File: "a.yaml", Start: Pos{Line: 3, Column: 7}}, "x.y", "E1", "early")
	ds = ds.Sort()
	if len(ds) != 3 {
		t.Fatalf("duplicates not dropped: %d", len(ds))
	}
	want := []string{"a.yaml:3:7: error: early", "a.yaml:9:2: error: late", "b.yaml:1:1: warning: warn"}
	for i, d := range ds {
		if d.Error() != want[i] {
			t.Errorf("%d: got %q want %q", i, d.Error(), want[i])
		}
	}
	if e, w := ds.Count(); e != 2 || w != 1 {
		t.Errorf("count = %d, %d", e, w)
	}
	if !ds.HasErrors() {
		t.Error("HasErrors false")
	}
	err := ds.Err()
	if err == nil || !strings.Contains(err.Error(), "late") || strings.Contains(err.Error(), "warn") {
		t.Errorf("Err = %v", err)
	}
	if (Diagnostics{}).Err() != nil {
		t.Error("empty list gives an error")
	}
}

func TestRangeString(t *testing.T) {
	cases := map[string]Range{
		"":           {},
		"f.yaml":     {File: "f.yaml"},
		"2:3":        {Start: Pos{Line: 2, Column: 3}},
		"f.yaml:2:3": {File: "f.yaml", Start: Pos{Line: 2, Column: 3}},
	}
	for want, r := range cases {
		if got := r.String(); got != want {
			t.Errorf("got %q want %q", got, want)
		}
	}
}
