// Package symbols holds the index of names that a front end (pkg/tosca,
// pkg/manifest) builds as it compiles: each definition with where its name
// is written, and every place that names it. Editors answer hover, go to
// definition, find references, completion and the outline from it (xosplan
// lsp), without a second reading of the YAML. The front ends fill it; this
// package only stores and searches it, and imports nothing of ours but
// pkg/diag.
package symbols

import (
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
)

// Kind says what a Symbol names.
type Kind uint8

// The kinds of symbols: TOSCA's, then the manifests'.
const (
	Type Kind = iota + 1
	NodeTemplate
	RelationshipTemplate
	Group
	Policy
	Input
	Output
	Property
	Attribute
	Requirement
	Capability
	File
	Application
	Component
	Interface
	Pin
	ComponentKind
	// Function is a TOSCA 2.0 custom function (a file's functions).
	Function
)

// String names the kind as a message or an editor's outline shows it.
func (k Kind) String() string {
	names := [...]string{"", "type", "node template", "relationship template", "group", "policy", "input",
		"output", "property", "attribute", "requirement", "capability", "file", "application", "component",
		"interface", "pin", "component type", "function"}
	if int(k) < len(names) {
		return names[k]
	}
	return ""
}

// Symbol is one named definition.
type Symbol struct {
	Kind Kind
	// Name is the name as written where it is defined (a component's
	// dot-joined path below its application; a pin's interface.pin).
	Name string
	// Container is what a member belongs to: the type of a property,
	// attribute, requirement or capability; the component of an
	// interface or pin; "" otherwise.
	Container string
	// Parent is the type a type derives from, "" for none.
	Parent string
	// Range is where the name is written. An embedded definition (the
	// normative types, the component kinds of the registry) has a pseudo
	// file name, or none, and Embedded set.
	Range    diag.Range
	Embedded bool
	// Type is, for a type, its kind ("node type", "data type", …); for a
	// template, member or component, the name of its type.
	Type string
	// ParentRef, ContainerRef and TypeRef locate the symbols Parent,
	// Container and (for a template or member) Type name, where a front
	// end knows them: TOSCA 2.0 names a node type and a data type Root
	// alike, and two namespaces may both define a type, so a name alone
	// may not say which. Zero: by name.
	ParentRef, ContainerRef, TypeRef Ref
	// Detail is what an editor shows on hover, in Markdown. It never holds
	// a sensitive value.
	Detail string
}

// Ref locates a symbol of the same Index: 1 + its index in Symbols, so
// that the zero Ref locates none.
type Ref int

// RefTo returns the Ref of the symbol at index i of Symbols.
func RefTo(i int) Ref { return Ref(i + 1) }

// Index returns the index in Symbols that r locates; ok is false for
// the zero Ref.
func (r Ref) Index() (i int, ok bool) { return int(r) - 1, r > 0 }

// Spelling is a name by which the compiled file may write a symbol.
type Spelling struct {
	Name   string
	Symbol int
}

// Reference is one place that names a symbol (an index in Symbols).
type Reference struct {
	Range  diag.Range
	Symbol int
}

// Call is one function call of a value and what it resolves to at
// compile time.
type Call struct {
	// Range is where the function's name is written.
	Range diag.Range
	// Function is its name (get_input, get_property, …).
	Function string
	// Result says what the call resolves to, in Markdown: the value when
	// it is known at compile time (a sensitive value is not shown), else
	// that it is known at apply time.
	Result string
}

// Index is what a compile found of the names of its files.
type Index struct {
	// Version is the TOSCA root file's tosca_definitions_version
	// (normalised); "" for manifests.
	Version string
	// Files lists the files the compile read that are not embedded, the
	// file it was given first: a change to any of them changes its result.
	Files []string
	// Symbols are the definitions in declaration order; References and
	// Calls are sorted by position.
	Symbols    []Symbol
	References []Reference
	Calls      []Call
	// TypeNames, when not nil, lists every name by which the compiled
	// file may write a type (TOSCA 2.0: the types of the file and of
	// what it imports without a namespace by their names, those of a
	// file imported with namespace ns as ns:name). Nil: each type's
	// Name.
	TypeNames []Spelling
}

// Add appends a symbol and returns its index in Symbols.
func (x *Index) Add(s Symbol) int {
	x.Symbols = append(x.Symbols, s)
	return len(x.Symbols) - 1
}

// Refer records that the symbol at index sym is named at r; a range
// without a file or a position (a name the compiler made up) names
// nothing an editor can show and is left out.
func (x *Index) Refer(r diag.Range, sym int) {
	if r.File != "" && !r.Start.IsZero() {
		x.References = append(x.References, Reference{Range: r, Symbol: sym})
	}
}

// SymbolAt returns the index in Symbols of the symbol named or defined at
// the position (1-based line and column, counted in code points) of file,
// and whether there is one. A reference wins over a definition.
func (x *Index) SymbolAt(file string, line, col int) (int, bool) {
	for _, r := range x.References {
		if Within(r.Range, file, line, col) {
			return r.Symbol, true
		}
	}
	for i, s := range x.Symbols {
		if !s.Embedded && Within(s.Range, file, line, col) {
			return i, true
		}
	}
	return 0, false
}

// CallAt returns the function call whose name is written at the position.
func (x *Index) CallAt(file string, line, col int) (Call, bool) {
	for _, c := range x.Calls {
		if Within(c.Range, file, line, col) {
			return c, true
		}
	}
	return Call{}, false
}

// ReferencesTo lists where the symbol is named, sorted by position.
func (x *Index) ReferencesTo(sym int) []diag.Range {
	var out []diag.Range
	for _, r := range x.References {
		if r.Symbol == sym {
			out = append(out, r.Range)
		}
	}
	return out
}

// Names lists, sorted and without duplicates, the names of the symbols of
// a kind whose Type is typ ("" for any).
func (x *Index) Names(kind Kind, typ string) []string {
	var out []string
	for _, s := range x.Symbols {
		if s.Kind == kind && (typ == "" || s.Type == typ) {
			out = append(out, s.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Lookup returns the first symbol of the kind with the name.
func (x *Index) Lookup(kind Kind, name string) (Symbol, bool) {
	for _, s := range x.Symbols {
		if s.Kind == kind && s.Name == name {
			return s, true
		}
	}
	return Symbol{}, false
}

// Members lists the members of a kind (Property, Requirement, …) that the
// type typeName defines or inherits through Parent, sorted by name; a
// member a type redefines is its own. A type of that name that holds
// ParentRef and ContainerRef is followed by them (MembersOf).
func (x *Index) Members(typeName string, kind Kind) []Symbol {
	for i, s := range x.Symbols {
		if s.Kind == Type && s.Name == typeName {
			return x.MembersOf(i, kind)
		}
	}
	var out []Symbol
	for _, s := range x.Symbols {
		if s.Kind == kind && s.Container == typeName && !slices.ContainsFunc(out, func(o Symbol) bool { return o.Name == s.Name }) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b Symbol) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// MembersOf is Members of the type at index typ of Symbols: its members
// and those of its ancestors, each located by ContainerRef and ParentRef
// where the front end gives them, else by name.
func (x *Index) MembersOf(typ int, kind Kind) []Symbol {
	seen := map[string]bool{}
	var out []Symbol
	for _, t := range x.chain(typ) {
		ref, name := RefTo(t), x.Symbols[t].Name
		for _, s := range x.Symbols {
			if s.Kind != kind || seen[s.Name] {
				continue
			}
			if s.ContainerRef == ref || s.ContainerRef == 0 && s.Container == name {
				seen[s.Name] = true
				out = append(out, s)
			}
		}
	}
	slices.SortFunc(out, func(a, b Symbol) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// TypesOf lists, sorted and without duplicates, the names by which the
// compiled file may write types of a kind ("node type"; "" for any):
// TypeNames when the front end gives them, else the types' names.
func (x *Index) TypesOf(typ string) []string {
	if x.TypeNames == nil {
		return x.Names(Type, typ)
	}
	var out []string
	for _, sp := range x.TypeNames {
		if s := x.Symbols[sp.Symbol]; typ == "" || s.Type == typ {
			out = append(out, sp.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// maxChain bounds a derivation chain (the compiler refuses longer ones).
const maxChain = 256

// chain lists the type at index typ of Symbols and its ancestors, by
// ParentRef where given, else by Parent's name.
func (x *Index) chain(typ int) []int {
	out := []int{typ}
	for len(out) < maxChain {
		s := x.Symbols[out[len(out)-1]]
		next, ok := s.ParentRef.Index()
		if !ok {
			if s.Parent == "" {
				break
			}
			next = slices.IndexFunc(x.Symbols, func(p Symbol) bool { return p.Kind == Type && p.Name == s.Parent })
			if next < 0 {
				break
			}
		}
		if next < 0 || next >= len(x.Symbols) || slices.Contains(out, next) {
			break
		}
		out = append(out, next)
	}
	return out
}

// Within reports whether the position lies in r: on its first line,
// between its start and end columns (its start alone when it has no end
// on that line).
func Within(r diag.Range, file string, line, col int) bool {
	if r.File != file || r.Start.Line != line {
		return false
	}
	end := r.End.Column
	if r.End.Line != line || end < r.Start.Column {
		end = r.Start.Column
	}
	return col >= r.Start.Column && col <= end
}

// Sort orders the references and calls by position and keeps one of each
// position: a front end may record a name twice when it evaluates a value
// twice.
func (x *Index) Sort() {
	x.References = sortUnique(x.References, func(r Reference) diag.Range { return r.Range })
	x.Calls = sortUnique(x.Calls, func(c Call) diag.Range { return c.Range })
}

// sortUnique sorts by position, the first recorded of a position first,
// and keeps that one. It sorts integer keys — the file's rank, line,
// column and recording order — rather than comparing ranges: sorting by
// comparing file names was most of indexing a 10,000-node template.
func sortUnique[T any](s []T, at func(T) diag.Range) []T {
	files := map[string]int{}
	for _, v := range s {
		files[at(v).File] = 0
	}
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	slices.Sort(names)
	for i, f := range names {
		files[f] = i
	}
	type keyed struct {
		file, line, col, n int
	}
	order := make([]keyed, len(s))
	for i, v := range s {
		r := at(v)
		order[i] = keyed{files[r.File], r.Start.Line, r.Start.Column, i}
	}
	slices.SortFunc(order, func(a, b keyed) int {
		switch {
		case a.file != b.file:
			return a.file - b.file
		case a.line != b.line:
			return a.line - b.line
		case a.col != b.col:
			return a.col - b.col
		}
		return a.n - b.n
	})
	out := make([]T, 0, len(s))
	for i, o := range order {
		if i == 0 || at(s[o.n]) != at(s[order[i-1].n]) {
			out = append(out, s[o.n])
		}
	}
	return out
}
