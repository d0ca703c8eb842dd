package tosca2

// Namespaces of TOSCA 2.0 (§6.8.4): the names a file sees are its own
// definitions, those of the files it imports without a namespace (and,
// transitively, what those see), and those of a file imported with a
// namespace, written ns:name.

import (
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// nsImport is one import of a file: the namespace it was given ("" for
// none) and the file loaded.
type nsImport struct {
	ns string
	f  *file
	// at is the import entry, where a name conflict is reported.
	at *yamlsrc.Node
}

// scope is what one 2.0 file declares and imports.
type scope struct {
	imports []nsImport
	types   [core.NumKinds]map[string]*typeDef
	funcs   map[string]*funcDef
}

// scope returns the scope of a file, creating it on first use.
func (c *compiler) scope(f *file) *scope {
	s, ok := c.state.scopes[f]
	if !ok {
		s = &scope{funcs: map[string]*funcDef{}}
		for k := range s.types {
			s.types[k] = map[string]*typeDef{}
		}
		c.state.scopes[f] = s
	}
	return s
}

// findType resolves a type name as the file f sees it: a built-in data
// type, the file's own types, those of its imports without namespace,
// and ns:name through an import with that namespace.
func (c *compiler) findType(f *file, k core.Kind, name string) *typeDef {
	if k == core.KData {
		if t := c.state.builtins[name]; t != nil {
			return t
		}
	}
	return c.findIn(f, k, name, map[*file]bool{})
}

func (c *compiler) findIn(f *file, k core.Kind, name string, seen map[*file]bool) *typeDef {
	if f == nil || seen[f] {
		return nil
	}
	seen[f] = true
	s := c.scope(f)
	if t := s.types[k][name]; t != nil {
		return t
	}
	if ns, rest, ok := strings.Cut(name, ":"); ok {
		for _, im := range s.imports {
			if im.ns == ns {
				if t := c.findIn(im.f, k, rest, map[*file]bool{}); t != nil {
					return t
				}
			}
		}
	}
	for _, im := range s.imports {
		if im.ns == "" {
			if t := c.findIn(im.f, k, name, seen); t != nil {
				return t
			}
		}
	}
	return nil
}

// visibleTypeNames lists the names of the types of kind k that file f may write
// (what findType finds): its own and its imports' without a namespace,
// ns:name for those of an import with namespace ns, and the built-in data
// types. Each file is listed once per namespace prefix.
func (c *compiler) visibleTypeNames(f *file, k core.Kind) iter.Seq[string] {
	return func(yield func(string) bool) {
		if k == core.KData {
			for name := range c.state.builtins {
				if !yield(name) {
					return
				}
			}
		}
		type visit struct {
			f  *file
			ns string
		}
		seen := map[visit]bool{}
		var walk func(g *file, prefix string) bool
		walk = func(g *file, prefix string) bool {
			if g == nil || seen[visit{g, prefix}] {
				return true
			}
			seen[visit{g, prefix}] = true
			s := c.scope(g)
			for name := range s.types[k] {
				if !yield(prefix + name) {
					return false
				}
			}
			for _, im := range s.imports {
				p := prefix
				if im.ns != "" {
					if prefix != "" {
						continue // findIn resolves one namespace step
					}
					p = im.ns + ":"
				}
				if !walk(im.f, p) {
					return false
				}
			}
			return true
		}
		walk(f, "")
	}
}

// checkNamespaces warns of names defined twice in one namespace
// (§6.8.4): a file's own types and those its imports without a namespace
// bring into its root namespace, unless they are the same definition
// reached twice. §6.8.4 makes a duplicate within one file an error (YAML
// duplicate keys, tosca.duplicate_key) and calls one across files
// ambiguous; the TC's suite redefines imported types locally, so the
// file's own definition wins, then the first import's, with a warning.
func (c *compiler) checkNamespaces() {
	for _, f := range c.state.files {
		var own [core.NumKinds]map[string]*typeDef
		s := c.scope(f)
		for k := range own {
			own[k] = map[string]*typeDef{}
			for name, t := range s.types[k] {
				own[k][name] = t
			}
		}
		for _, im := range s.imports {
			if im.ns != "" {
				continue
			}
			visible := c.rootNames(im.f, map[*file]bool{f: true})
			for k := core.Kind(0); k < core.NumKinds; k++ {
				for _, name := range slices.Sorted(maps.Keys(visible[k])) {
					t := visible[k][name]
					prev, dup := own[k][name]
					switch {
					case !dup:
						own[k][name] = t
					case prev != t:
						if prev.f == f {
							c.Warnf(prev.key, prev.path, core.CodeTypeRedefined, "%s %q is defined here and in %s, which this file imports without a namespace: this definition is used (§6.8.4: import the other with a namespace to use both)", k.Word(), name, c.Display(t.f.name))
							continue
						}
						c.Warnf(core.RangeOf(im.at), "imports", core.CodeTypeRedefined, "%s %q is defined in %s and in %s, both imported without a namespace: the first is used (§6.8.4: import one with a namespace to use both)", k.Word(), name, c.Display(prev.f.name), c.Display(t.f.name))
					}
				}
			}
		}
	}
}

// rootNames returns the types a file brings into the root namespace of
// a file that imports it without a namespace: its own and, transitively,
// those of its own imports without a namespace.
func (c *compiler) rootNames(f *file, seen map[*file]bool) [core.NumKinds]map[string]*typeDef {
	var out [core.NumKinds]map[string]*typeDef
	for k := range out {
		out[k] = map[string]*typeDef{}
	}
	if seen[f] {
		return out
	}
	seen[f] = true
	s := c.scope(f)
	for _, im := range s.imports {
		if im.ns == "" {
			sub := c.rootNames(im.f, seen)
			for k := range out {
				clone(out[k], sub[k])
			}
		}
	}
	for k := range out {
		clone(out[k], s.types[k])
	}
	return out
}

// findFunc resolves a custom function name as the file f sees it.
func (c *compiler) findFunc(f *file, name string) *funcDef {
	if c.state.funcFound == nil {
		return c.findFuncIn(f, name, map[*file]bool{})
	}
	// Once every function is read, what a name finds is kept: values
	// call the same functions template after template; without custom
	// functions (most templates) every name is a built-in's.
	if !c.state.anyFunc {
		return nil
	}
	k := funcKey{f, name}
	if d, ok := c.state.funcFound[k]; ok {
		return d
	}
	d := c.findFuncIn(f, name, map[*file]bool{})
	c.state.funcFound[k] = d
	return d
}

// funcKey is a function name as a file sees it (findFunc).
type funcKey struct {
	f    *file
	name string
}

func (c *compiler) findFuncIn(f *file, name string, seen map[*file]bool) *funcDef {
	if f == nil || seen[f] {
		return nil
	}
	seen[f] = true
	s := c.scope(f)
	if d := s.funcs[name]; d != nil {
		return d
	}
	if ns, rest, ok := strings.Cut(name, ":"); ok {
		for _, im := range s.imports {
			if im.ns == ns {
				if d := c.findFuncIn(im.f, rest, map[*file]bool{}); d != nil {
					return d
				}
			}
		}
	}
	for _, im := range s.imports {
		if im.ns == "" {
			if d := c.findFuncIn(im.f, name, seen); d != nil {
				return d
			}
		}
	}
	return nil
}

// findRepo resolves a repository name as the file f sees it, with the
// file that defines it. §6.7 makes a profile a collection of "types,
// repositories, and functions", and §6.8.4 counts repositories among the
// names of a namespace (OASIS Standard and csd07 alike): like a type, a
// repository is the file's own, one of an import without a namespace
// (transitively), or ns:name through an import with that namespace.
// While a file's imports load, those before the import being read are
// known.
func (c *compiler) findRepo(f *file, name string) (*yamlsrc.Node, *file) {
	return c.findRepoIn(f, name, map[*file]bool{})
}

func (c *compiler) findRepoIn(f *file, name string, seen map[*file]bool) (*yamlsrc.Node, *file) {
	if f == nil || f.root == nil || seen[f] {
		return nil, nil
	}
	seen[f] = true
	if rs := f.root.Get("repositories"); rs != nil && rs.Kind == yamlsrc.Mapping {
		if r := rs.Get(name); r != nil {
			return r, f
		}
	}
	s := c.scope(f)
	if ns, rest, ok := strings.Cut(name, ":"); ok {
		for _, im := range s.imports {
			if im.ns == ns {
				if r, g := c.findRepoIn(im.f, rest, map[*file]bool{}); r != nil {
					return r, g
				}
			}
		}
	}
	for _, im := range s.imports {
		if im.ns == "" {
			if r, g := c.findRepoIn(im.f, name, seen); r != nil {
				return r, g
			}
		}
	}
	return nil, nil
}

// typeRef resolves a type name written at n, reporting one that is not
// a string or names no type of the kind. It returns nil then.
func (c *compiler) typeRef(f *file, k core.Kind, n *yamlsrc.Node, path string) *typeDef {
	return c.typeRefAt(f, k, n, path, "")
}

// typeRefAt is typeRef at the path base+leaf, joined only for a
// diagnostic.
func (c *compiler) typeRefAt(f *file, k core.Kind, n *yamlsrc.Node, base, leaf string) *typeDef {
	if n == nil || n.Kind != yamlsrc.Scalar || !n.IsString() || n.Value == "" {
		if n == nil || n.IsNull() {
			c.Errorf(core.RangeOf(n), base+leaf, core.CodeMissingField, "a %s name is required here", k.Word())
		} else {
			c.Errorf(n.Range, base+leaf, core.CodeWrongKind, "a %s name must be a string, found %s", k.Word(), n.Describe())
		}
		return nil
	}
	t := c.findType(f, k, n.Value)
	if t != nil && t.state == 0 {
		// A type named before its turn is resolved now, so that its
		// members and ancestors are known where it is used; one being
		// resolved (a type that refers to itself through a property) is
		// used as it stands.
		c.resolveType(t, 0)
	}
	if t == nil {
		c.UnknownOnce(core.UnknownKey{Kind: k, Name: n.Value, Error: true}, func() {
			c.Errorf(n.Range, base+leaf, core.CodeUnknownType, "unknown %s %q", k.Word(), n.Value)
			c.SuggestLast(n.Value, c.visibleTypeNames(f, k))
		})
	} else if k == core.KData && strings.HasPrefix(t.name, "scalar-unit.") && t.f == nil {
		c.Warnf(n.Range, base+leaf, core.CodeLegacyType, "%s is a TOSCA 1.3 type; TOSCA 2.0 profiles define scalar types (§9.1.2.2): read with 1.3's units", t.name)
	} else if k == core.KData && t.name == "range" && t.f == nil {
		c.Warnf(n.Range, base+leaf, core.CodeLegacyType, "range is a TOSCA 1.3 type that TOSCA 2.0 dropped (§9.1): read as 1.3 reads it, [ lower, upper ] with upper UNBOUNDED allowed")
	}
	return t
}
