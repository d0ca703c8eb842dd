package tosca

// Phase 3 (2.0) — custom function definitions (§6.6, §10.4): each
// function's signatures (arguments, optional_arguments, variadic, result,
// implementation), and calls checked against them.
//
// Errors detected here:
//   - functions that is not a map, a definition without signatures or of the wrong kind,
//     signature keynames the grammar does not define, argument and result definitions with
//     unknown types (tosca.wrong_kind, tosca.missing_field, tosca.unknown_field,
//     tosca.unknown_type)
//   - a call whose number of arguments no signature accepts (tosca.function)

import (
	"slices"

	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// funcDef2 is one custom function definition.
type funcDef2 struct {
	name string
	f    *file
	sigs []sig2
}

// sig2 is a signature: the number of arguments it takes.
type sig2 struct {
	min, max int // max < 0: variadic
}

// readFunctions2 declares every custom function of every loaded file.
func (c *compiler) readFunctions2() {
	for _, f := range c.v2.files {
		n := f.root.Get("functions")
		if n == nil || n.Kind != yamlsrc.Mapping {
			continue
		}
		s := c.scope2(f)
		for _, p := range n.Pairs() {
			if d := c.readFuncDef2(f, p, "functions."+p.Key.Value); d != nil {
				s.funcs[d.name] = d
				c.v2.funcs = append(c.v2.funcs, d)
			}
		}
	}
	if st := c.root.root.Get("service_template"); st != nil {
		c.refineFunctions2(c.root, st.Get("functions"))
	}
}

// refineFunctions2 reads the functions of the service template: new
// ones, or refinements of those the file sees, whose signatures may
// change only their implementation (an empty entry keeps one), new
// signatures following (§10.4).
func (c *compiler) refineFunctions2(f *file, n *yamlsrc.Node) {
	if n == nil || n.Kind != yamlsrc.Mapping {
		return
	}
	s := c.scope2(f)
	for _, p := range n.Pairs() {
		path := "service_template.functions." + p.Key.Value
		outer := c.findFunc2(f, p.Key.Value)
		if outer == nil {
			if d := c.readFuncDef2(f, p, path); d != nil {
				s.funcs[d.name] = d
			}
			continue
		}
		if !c.keys2(p.Value, path, func() string { return "function " + quote(p.Key.Value) }, []string{"signatures", "description", "metadata"}, nil) {
			continue
		}
		d := &funcDef2{name: outer.name, f: f, sigs: outer.sigs}
		sn := p.Value.Get("signatures")
		for i, sig := range sn.Items() {
			sp := path + ".signatures[" + itoa(int64(i)) + "]"
			if i >= len(outer.sigs) {
				if more, ok := c.readSignature2(f, sig, sp); ok {
					d.sigs = append(slices.Clone(d.sigs), more)
				}
				continue
			}
			if sig.IsNull() {
				continue
			}
			if c.keys2(sig, sp, func() string { return "signature" }, []string{"implementation"}, nil) {
				if im := sig.Get("implementation"); im != nil {
					c.checkImpl2(im, sp+".implementation")
				}
			}
		}
		s.funcs[d.name] = d
	}
}

func (c *compiler) readFuncDef2(f *file, p yamlsrc.Pair, path string) *funcDef2 {
	name := p.Key.Value
	if !p.Key.IsString() || name == "" {
		c.errorf(p.Key.Range, path, CodeBadName, "a function name must be a non-empty string, found %s", p.Key.Describe())
		return nil
	}
	if !c.keys2(p.Value, path, func() string { return "function " + quote(name) }, []string{"signatures", "description", "metadata"}, nil) {
		if p.Value.IsNull() {
			c.errorf(p.Key.Range, path, CodeMissingField, "function %q is missing required field \"signatures\"", name)
		}
		return nil
	}
	c.metadata2(p.Value, path)
	sn := p.Value.Get("signatures")
	if sn == nil || sn.Kind != yamlsrc.Sequence || len(sn.Content) == 0 {
		c.errorf(rangeOf(sn), path+".signatures", CodeMissingField, "function %q needs a list of one or more signatures", name)
		return nil
	}
	d := &funcDef2{name: name, f: f}
	for i, sig := range sn.Content {
		if sg, ok := c.readSignature2(f, sig, path+".signatures["+itoa(int64(i))+"]"); ok {
			d.sigs = append(d.sigs, sg)
		}
	}
	return d
}

// readSignature2 reads one signature: its argument definitions and
// whether it is variadic.
func (c *compiler) readSignature2(f *file, s *yamlsrc.Node, sp string) (sig2, bool) {
	sig := sig2{}
	if !c.keys2(s, sp, func() string { return "signature" }, []string{"arguments", "optional_arguments", "variadic", "result", "implementation"}, nil) {
		return sig, false
	}
	for _, key := range []string{"arguments", "optional_arguments"} {
		an := s.Get(key)
		if an == nil || an.IsNull() {
			continue
		}
		if an.Kind != yamlsrc.Sequence {
			c.errorf(an.Range, sp+"."+key, CodeWrongKind, "%s must be a list of definitions, found %s", key, an.Describe())
			continue
		}
		for j, a := range an.Content {
			c.readSchema2(f, a, sp+"."+key+"["+itoa(int64(j))+"]")
		}
		if key == "arguments" {
			sig.min = len(an.Content)
		}
		sig.max += len(an.Content)
	}
	if v, set := c.bool2(s, sp, "variadic"); set && v {
		sig.max = -1
	}
	if r := s.Get("result"); r != nil {
		c.readSchema2(f, r, sp+".result")
	}
	if im := s.Get("implementation"); im != nil {
		c.checkImpl2(im, sp+".implementation")
	}
	return sig, true
}

// checkSignature2 checks a call's number of arguments against the
// function's signatures.
func (c *compiler) checkSignature2(d *funcDef2, n, args *yamlsrc.Node, path string) {
	if len(d.sigs) == 0 {
		return
	}
	got := len(argList2(args))
	for _, s := range d.sigs {
		if got >= s.min && (s.max < 0 || got <= s.max) {
			return
		}
	}
	c.errorf(n.Range, path, CodeFunction, "no signature of function $%s takes %d arguments", d.name, got)
}
