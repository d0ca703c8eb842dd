package symbols

import (
	"testing"

	"github.com/xosplan/xosplan/pkg/diag"
)

func at(line, col, endCol int) diag.Range {
	return diag.Range{File: "f.yaml", Start: diag.Pos{Line: line, Column: col}, End: diag.Pos{Line: line, Column: endCol}}
}

func TestIndexLookups(t *testing.T) {
	x := &Index{
		Symbols: []Symbol{
			{Kind: Type, Name: "base", Range: at(2, 3, 7)},
			{Kind: Type, Name: "child", Parent: "base", Range: at(5, 3, 8)},
			{Kind: Property, Name: "p", Container: "base", Range: at(3, 7, 8)},
			{Kind: Property, Name: "q", Container: "child", Range: at(6, 7, 8)},
			{Kind: Property, Name: "p", Container: "child", Range: at(7, 7, 8)},
		},
		References: []Reference{{Range: at(9, 11, 16), Symbol: 1}, {Range: at(9, 11, 16), Symbol: 1}, {Range: at(8, 11, 16), Symbol: 1}},
	}
	x.Sort()
	if len(x.References) != 2 || x.References[0].Range.Start.Line != 8 {
		t.Errorf("Sort: %v", x.References)
	}
	for _, tc := range []struct {
		line, col int
		want      int
		ok        bool
	}{{9, 11, 1, true}, {9, 16, 1, true}, {9, 17, 0, false}, {2, 4, 0, true}, {2, 2, 0, false}} {
		got, ok := x.SymbolAt("f.yaml", tc.line, tc.col)
		if got != tc.want || ok != tc.ok {
			t.Errorf("SymbolAt(%d:%d) = %d, %t", tc.line, tc.col, got, ok)
		}
	}
	ms := x.Members("child", Property)
	if len(ms) != 2 || ms[0].Name != "p" || ms[0].Container != "child" || ms[1].Name != "q" {
		t.Errorf("Members(child) = %v: the child's own p must win", ms)
	}
	if got := x.Names(Type, ""); len(got) != 2 || got[0] != "base" {
		t.Errorf("Names = %v", got)
	}
	if refs := x.ReferencesTo(1); len(refs) != 2 {
		t.Errorf("ReferencesTo = %v", refs)
	}
}
