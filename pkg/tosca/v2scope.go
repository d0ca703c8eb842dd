package tosca

// Namespaces of TOSCA 2.0 (§6.8.4): the names a file sees are its own
// definitions, those of the files it imports without a namespace (and,
// transitively, what those see), and those of a file imported with a
// namespace, written ns:name.

import (
	"maps"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// nsImport is one import of a file: the namespace it was given ("" for
// none) and the file loaded.
type nsImport struct {
	ns string
	f  *file
	// at is the import entry, where a name conflict is reported.
	at *yamlsrc.Node
}

// scope2 is what one 2.0 file declares and imports.
type scope2 struct {
	imports []nsImport
	types   [numKinds]map[string]*typeDef2
	funcs   map[string]*funcDef2
}

// scope2 returns the scope of a file, creating it on first use.
func (c *compiler) scope2(f *file) *scope2 {
	s, ok := c.v2.scopes[f]
	if !ok {
		s = &scope2{funcs: map[string]*funcDef2{}}
		for k := range s.types {
			s.types[k] = map[string]*typeDef2{}
		}
		c.v2.scopes[f] = s
	}
	return s
}

// findType2 resolves a type name as the file f sees it: a built-in data
// type, the file's own types, those of its imports without namespace,
// and ns:name through an import with that namespace.
func (c *compiler) findType2(f *file, k kind, name string) *typeDef2 {
	if k == kData {
		if t := c.v2.builtins[name]; t != nil {
			return t
		}
	}
	return c.findIn2(f, k, name, map[*file]bool{})
}

func (c *compiler) findIn2(f *file, k kind, name string, seen map[*file]bool) *typeDef2 {
	if f == nil || seen[f] {
		return nil
	}
	seen[f] = true
	s := c.scope2(f)
	if t := s.types[k][name]; t != nil {
		return t
	}
	if ns, rest, ok := strings.Cut(name, ":"); ok {
		for _, im := range s.imports {
			if im.ns == ns {
				if t := c.findIn2(im.f, k, rest, map[*file]bool{}); t != nil {
					return t
				}
			}
		}
	}
	for _, im := range s.imports {
		if im.ns == "" {
			if t := c.findIn2(im.f, k, name, seen); t != nil {
				return t
			}
		}
	}
	return nil
}

// checkNamespaces2 warns of names defined twice in one namespace
// (§6.8.4): a file's own types and those its imports without a namespace
// bring into its root namespace, unless they are the same definition
// reached twice. §6.8.4 makes a duplicate within one file an error (YAML
// duplicate keys, tosca.duplicate_key) and calls one across files
// ambiguous; the TC's suite redefines imported types locally, so the
// file's own definition wins, then the first import's, with a warning.
func (c *compiler) checkNamespaces2() {
	for _, f := range c.v2.files {
		var own [numKinds]map[string]*typeDef2
		s := c.scope2(f)
		for k := range own {
			own[k] = map[string]*typeDef2{}
			for name, t := range s.types[k] {
				own[k][name] = t
			}
		}
		for _, im := range s.imports {
			if im.ns != "" {
				continue
			}
			visible := c.rootNames2(im.f, map[*file]bool{f: true})
			for k := kind(0); k < numKinds; k++ {
				for _, name := range slices.Sorted(maps.Keys(visible[k])) {
					t := visible[k][name]
					prev, dup := own[k][name]
					switch {
					case !dup:
						own[k][name] = t
					case prev != t:
						if prev.f == f {
							c.warnf(prev.key, prev.path, CodeTypeRedefined, "%s %q is defined here and in %s, which this file imports without a namespace: this definition is used (§6.8.4: import the other with a namespace to use both)", k.word(), name, c.display(t.f.name))
							continue
						}
						c.warnf(rangeOf(im.at), "imports", CodeTypeRedefined, "%s %q is defined in %s and in %s, both imported without a namespace: the first is used (§6.8.4: import one with a namespace to use both)", k.word(), name, c.display(prev.f.name), c.display(t.f.name))
					}
				}
			}
		}
	}
}

// rootNames2 returns the types a file brings into the root namespace of
// a file that imports it without a namespace: its own and, transitively,
// those of its own imports without a namespace.
func (c *compiler) rootNames2(f *file, seen map[*file]bool) [numKinds]map[string]*typeDef2 {
	var out [numKinds]map[string]*typeDef2
	for k := range out {
		out[k] = map[string]*typeDef2{}
	}
	if seen[f] {
		return out
	}
	seen[f] = true
	s := c.scope2(f)
	for _, im := range s.imports {
		if im.ns == "" {
			sub := c.rootNames2(im.f, seen)
			for k := range out {
				clone2(out[k], sub[k])
			}
		}
	}
	for k := range out {
		clone2(out[k], s.types[k])
	}
	return out
}

// findFunc2 resolves a custom function name as the file f sees it.
func (c *compiler) findFunc2(f *file, name string) *funcDef2 {
	return c.findFuncIn2(f, name, map[*file]bool{})
}

func (c *compiler) findFuncIn2(f *file, name string, seen map[*file]bool) *funcDef2 {
	if f == nil || seen[f] {
		return nil
	}
	seen[f] = true
	s := c.scope2(f)
	if d := s.funcs[name]; d != nil {
		return d
	}
	if ns, rest, ok := strings.Cut(name, ":"); ok {
		for _, im := range s.imports {
			if im.ns == ns {
				if d := c.findFuncIn2(im.f, rest, map[*file]bool{}); d != nil {
					return d
				}
			}
		}
	}
	for _, im := range s.imports {
		if im.ns == "" {
			if d := c.findFuncIn2(im.f, name, seen); d != nil {
				return d
			}
		}
	}
	return nil
}

// findRepo2 resolves a repository name as the file f sees it, with the
// file that defines it. §6.7 makes a profile a collection of "types,
// repositories, and functions", and §6.8.4 counts repositories among the
// names of a namespace (OASIS Standard and csd07 alike): like a type, a
// repository is the file's own, one of an import without a namespace
// (transitively), or ns:name through an import with that namespace.
// While a file's imports load, those before the import being read are
// known.
func (c *compiler) findRepo2(f *file, name string) (*yamlsrc.Node, *file) {
	return c.findRepoIn2(f, name, map[*file]bool{})
}

func (c *compiler) findRepoIn2(f *file, name string, seen map[*file]bool) (*yamlsrc.Node, *file) {
	if f == nil || f.root == nil || seen[f] {
		return nil, nil
	}
	seen[f] = true
	if rs := f.root.Get("repositories"); rs != nil && rs.Kind == yamlsrc.Mapping {
		if r := rs.Get(name); r != nil {
			return r, f
		}
	}
	s := c.scope2(f)
	if ns, rest, ok := strings.Cut(name, ":"); ok {
		for _, im := range s.imports {
			if im.ns == ns {
				if r, g := c.findRepoIn2(im.f, rest, map[*file]bool{}); r != nil {
					return r, g
				}
			}
		}
	}
	for _, im := range s.imports {
		if im.ns == "" {
			if r, g := c.findRepoIn2(im.f, name, seen); r != nil {
				return r, g
			}
		}
	}
	return nil, nil
}

// typeRef2 resolves a type name written at n, reporting one that is not
// a string or names no type of the kind. It returns nil then.
func (c *compiler) typeRef2(f *file, k kind, n *yamlsrc.Node, path string) *typeDef2 {
	if n == nil || n.Kind != yamlsrc.Scalar || !n.IsString() || n.Value == "" {
		if n == nil || n.IsNull() {
			c.errorf(rangeOf(n), path, CodeMissingField, "a %s name is required here", k.word())
		} else {
			c.errorf(n.Range, path, CodeWrongKind, "a %s name must be a string, found %s", k.word(), n.Describe())
		}
		return nil
	}
	t := c.findType2(f, k, n.Value)
	if t != nil && t.state == 0 {
		// A type named before its turn is resolved now, so that its
		// members and ancestors are known where it is used; one being
		// resolved (a type that refers to itself through a property) is
		// used as it stands.
		c.resolveType2(t, 0)
	}
	if t == nil {
		c.unknownType(k, n, path, false, "unknown %s %q", k.word(), n.Value)
	} else if k == kData && strings.HasPrefix(t.name, "scalar-unit.") && t.f == nil {
		c.warnf(n.Range, path, CodeLegacyType, "%s is a TOSCA 1.3 type; TOSCA 2.0 profiles define scalar types (§9.1.2.2): read with 1.3's units", t.name)
	} else if k == kData && t.name == "range" && t.f == nil {
		c.warnf(n.Range, path, CodeLegacyType, "range is a TOSCA 1.3 type that TOSCA 2.0 dropped (§9.1): read as 1.3 reads it, [ lower, upper ] with upper UNBOUNDED allowed")
	}
	return t
}
