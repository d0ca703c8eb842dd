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

// TestRefsTellNamesApart proves that members and parents located by Ref
// are found when names alone are ambiguous (TOSCA 2.0 names a node type
// and a data type Root alike), and that TypesOf offers the names the
// front end gives.
func TestRefsTellNamesApart(t *testing.T) {
	x := &Index{Symbols: []Symbol{
		{Kind: Type, Name: "Root", Type: "data type"},
		{Kind: Property, Name: "d", Container: "Root", ContainerRef: RefTo(0)},
		{Kind: Type, Name: "Root", Type: "node type"},
		{Kind: Property, Name: "n", Container: "Root", ContainerRef: RefTo(2)},
		{Kind: Type, Name: "Web", Type: "node type", Parent: "Root", ParentRef: RefTo(2)},
		{Kind: Property, Name: "port", Container: "Web", ContainerRef: RefTo(4)},
	}}
	var got []string
	for _, m := range x.MembersOf(4, Property) {
		got = append(got, m.Name)
	}
	if len(got) != 2 || got[0] != "n" || got[1] != "port" {
		t.Errorf("MembersOf(Web) = %v, want [n port]: the node type Root's, not the data type's", got)
	}
	if i, ok := RefTo(3).Index(); !ok || i != 3 {
		t.Errorf("RefTo(3).Index() = %d, %t", i, ok)
	}
	if _, ok := Ref(0).Index(); ok {
		t.Error("the zero Ref locates a symbol")
	}
	x.TypeNames = []Spelling{{Name: "Root", Symbol: 2}, {Name: "ns:Web", Symbol: 4}, {Name: "Root", Symbol: 0}}
	if got := x.TypesOf("node type"); len(got) != 2 || got[0] != "Root" || got[1] != "ns:Web" {
		t.Errorf("TypesOf(node type) = %v", got)
	}
}
