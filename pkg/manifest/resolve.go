package manifest

import (
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
)

// link is one resolved connection between a consumer (consume-signal or
// send-command) and a provider (publish-signal or receive-command).
type link struct {
	consumer, provider pinRef
	via                *binding
}

// resolver resolves bind() expressions and bindings of one application
// and checks that the pins they join pair up.
type resolver struct {
	diags diag.Diagnostics
	links []link
	// open records [x, open] bindings, resolved after the others so
	// that required interfaces bound elsewhere are known.
	open []openBinding
}

type openBinding struct {
	b           *binding
	open, other *component
}

func (r *resolver) errorf(rng diag.Range, path, code, format string, args ...any) {
	r.diags = r.diags.Errorf(rng, path, code, format, args...)
}

// resolve walks the composite tree bottom-up: a composite's re-exports
// need its children's pins, and its bindings need both.
func (r *resolver) resolve(c *component) {
	for _, ch := range c.children {
		r.resolve(ch)
	}
	for _, f := range c.ifaces {
		r.expandStar(c, f)
		for _, p := range f.pins {
			if p.bind != nil && !p.exported {
				r.resolveBindPin(c, p)
			}
		}
	}
	for _, b := range c.bindings {
		r.resolveBinding(c, b)
	}
}

// walk follows a dotted path of child names down from c.
func (r *resolver) walk(c *component, path []string, rng diag.Range, yaml string) *component {
	cur := c
	for i, seg := range path {
		next := cur.childByName[seg]
		if next == nil {
			where := "this composite"
			if i > 0 {
				where = quote(strings.Join(path[:i], "."))
			}
			r.errorf(rng, yaml, CodeUnknownComponent, "%s has no component %q", where, seg)
			return nil
		}
		cur = next
	}
	return cur
}

func markBound(c *component, iface string) {
	if f := c.ifaceByName[iface]; f != nil {
		f.bound = true
	}
}

// leavesOf returns the declared pins a pin stands for.
func leavesOf(c *component, iface string, p *pin) []pinRef {
	if p.exported {
		return p.leaves
	}
	return []pinRef{{c, iface, p}}
}

// targetIface finds the component and interface a bind() target names,
// relative to c. It returns a nil interface, the problem reported, when
// either is missing.
func (r *resolver) targetIface(c *component, t target, yaml string) (*component, *iface) {
	tc := r.walk(c, t.path, t.rng, yaml)
	if tc == nil {
		return nil, nil
	}
	tf := tc.ifaceByName[t.iface]
	if tf == nil {
		r.errorf(t.rng, yaml, CodeUnknownInterface, "component %q has no interface %q", tc.path, t.iface)
	}
	return tc, tf
}

// expandStar adds the pins of each "*": bind(c#i.*) re-export.
func (r *resolver) expandStar(c *component, f *iface) {
	for _, t := range f.star {
		tc, tf := r.targetIface(c, t, f.yaml)
		if tf == nil {
			continue
		}
		markBound(tc, t.iface)
		for _, q := range tf.pins {
			if f.pin(q.name) != nil {
				continue // an explicit pin of the same name wins
			}
			f.addPin(&pin{name: q.name, rng: t.rng, yaml: f.yaml, kind: q.kind, sig: q.sig, valid: q.valid,
				exported: true, leaves: leavesOf(tc, t.iface, q)})
		}
	}
}

// resolveBindPin follows a bind() pin to the pins it stands for and takes
// its kind and signature from them; fan-out targets must agree.
func (r *resolver) resolveBindPin(c *component, p *pin) {
	p.exported, p.valid = true, false
	var first *pin
	var firstText string
	for _, t := range p.bind {
		if t.pin == "*" {
			continue // reported by the loader
		}
		tc, tf := r.targetIface(c, t, p.yaml)
		if tf == nil {
			continue
		}
		q := tf.pin(t.pin)
		if q == nil {
			r.errorf(t.rng, p.yaml, CodeUnknownPin, "interface %q of component %q has no pin %q", t.iface, tc.path, t.pin)
			continue
		}
		markBound(tc, t.iface)
		if !q.valid {
			continue
		}
		p.leaves = append(p.leaves, leavesOf(tc, t.iface, q)...)
		if first == nil {
			first, firstText = q, t.text
			p.kind, p.sig, p.valid = q.kind, q.sig, true
			continue
		}
		switch {
		case q.kind != first.kind:
			r.errorf(t.rng, p.yaml, CodeDirectionMismatch, "bind() joins pins of different kinds: %s is %s but %s is %s",
				firstText, first.kind, t.text, q.kind)
		case !q.kind.isCommand() && !(assignable(q.sig.Type, first.sig.Type) && assignable(first.sig.Type, q.sig.Type)):
			r.errorf(t.rng, p.yaml, CodeTypeMismatch, "bind() joins pins of different types: %s is %s but %s is %s",
				firstText, first.sig.Type, t.text, q.sig.Type)
		case q.kind.isCommand():
			if msg := commandMismatch(first.sig, q.sig); msg != "" {
				r.errorf(t.rng, p.yaml, CodeTypeMismatch, "bind() joins commands with different signatures: %s", msg)
			}
		}
	}
}

func (r *resolver) resolveBinding(c *component, b *binding) {
	var sides [2]*component
	for i, e := range b.ends {
		sides[i] = r.walk(c, e.path, e.rng, b.yaml)
	}
	if sides[0] == nil || sides[1] == nil {
		return
	}
	if sides[0] == sides[1] {
		r.errorf(b.rng, b.yaml, CodeBadBinding, "binding %s joins %q to itself", b.text, sides[0].path)
		return
	}
	for i, e := range b.ends {
		if e.iface != "" && sides[i].ifaceByName[e.iface] == nil && !isOpen(sides[i]) {
			r.errorf(e.rng, b.yaml, CodeUnknownInterface, "component %q has no interface %q", sides[i].path, e.iface)
			return
		}
	}
	a, bb := sides[0], sides[1]
	ai, bi := b.ends[0].iface, b.ends[1].iface
	switch {
	case isOpen(a) || isOpen(bb):
		open, other := a, bb
		if !isOpen(a) {
			open, other = bb, a
		}
		r.open = append(r.open, openBinding{b: b, open: open, other: other})
	case ai == "" && bi == "":
		if !r.pairComponents(b, a, bb) {
			r.diags = r.diags.Warnf(b.rng, b.yaml, CodeBindingEmpty, "binding %s joins nothing: %q and %q share no interface and no pin name", b.text, a.path, bb.path)
		}
	default:
		// One side names its interface: the other side offers the
		// interface of that name, or its pins by name.
		if ai == "" {
			a, bb, ai, bi = bb, a, bi, ai
		}
		f := a.ifaceByName[ai]
		markBound(a, ai)
		if bi == "" {
			bi = ai
		}
		if g := bb.ifaceByName[bi]; g != nil {
			markBound(bb, bi)
			r.pair(b, a, f, bb, g)
			return
		}
		if b.ends[0].iface != "" && b.ends[1].iface != "" {
			r.errorf(b.rng, b.yaml, CodeUnknownInterface, "component %q has no interface %q", bb.path, bi)
			return
		}
		r.pairByPinName(b, a, f, bb, bb.ifaces, map[[2]*pin]bool{})
	}
}

// pairComponents joins two components: interfaces of the same name pin by
// pin; then the pins of each interface that has no namesake on the other
// side pair by pin name with any interface there. Real manifests rely on
// the latter: a keystore service's keypair-store.get-keypair serves a
// workflow's keystore.get-keypair, and `[slave, jenkins-server]` feeds
// the slave's jenkins-server interface from the server's result
// interface. It reports whether anything was joined.
func (r *resolver) pairComponents(b *binding, a, bb *component) bool {
	joined := false
	for _, f := range a.ifaces {
		if g := bb.ifaceByName[f.name]; g != nil {
			markBound(a, f.name)
			markBound(bb, f.name)
			r.pair(b, a, f, bb, g)
			// Two kinds' implicit settings interfaces meeting by name is
			// not what the author meant to join.
			joined = joined || !f.implicit || !g.implicit
		}
	}
	done := map[[2]*pin]bool{}
	for _, f := range a.ifaces {
		if bb.ifaceByName[f.name] == nil && r.pairByPinName(b, a, f, bb, bb.ifaces, done) {
			joined = true
		}
	}
	for _, g := range bb.ifaces {
		if a.ifaceByName[g.name] == nil && r.pairByPinName(b, bb, g, a, a.ifaces, done) {
			joined = true
		}
	}
	return joined
}

// pairByPinName joins each pin of f with the first pin of the same name
// and the complementary kind among the candidate interfaces.
func (r *resolver) pairByPinName(b *binding, a *component, f *iface, bb *component, cands []*iface, done map[[2]*pin]bool) bool {
	joined := false
	for _, p := range f.pins {
		if !p.valid || p.kind == pinConfiguration {
			continue
		}
		for _, g := range cands {
			if q := g.pin(p.name); q != nil && q.valid && q.kind == p.kind.peer() {
				markBound(a, f.name)
				markBound(bb, g.name)
				if !done[[2]*pin{p, q}] && !done[[2]*pin{q, p}] {
					done[[2]*pin{p, q}] = true
					r.pairPins(b, a, f, p, bb, g, q)
				}
				joined = true
				break
			}
		}
	}
	return joined
}

func isOpen(c *component) bool { return c.known != nil && c.known.OpenInterfaces }

// pair joins the same-named pins of two interfaces.
func (r *resolver) pair(b *binding, a *component, f *iface, bb *component, g *iface) {
	for _, p := range f.pins {
		if q := g.pin(p.name); q != nil {
			r.pairPins(b, a, f, p, bb, g, q)
		}
	}
}

func (r *resolver) pairPins(b *binding, a *component, f *iface, p *pin, bb *component, g *iface, q *pin) {
	if !p.valid || !q.valid || (p.kind == pinConfiguration && q.kind == pinConfiguration) {
		return
	}
	pr, qr := pinRef{a, f.name, p}, pinRef{bb, g.name, q}
	if p.kind == q.kind && (p.kind == pinConsume || p.kind == pinSend) {
		return // both sides need it from elsewhere: nothing to join
	}
	if q.kind != p.kind.peer() {
		r.errorf(b.rng, b.yaml, CodeDirectionMismatch, "binding %s pairs %s (%s) with %s (%s): a publish-signal binds to a consume-signal and a send-command to a receive-command",
			b.text, pr, p.kind, qr, q.kind)
		return
	}
	prov, cons := pr, qr
	if !p.kind.provides() {
		prov, cons = qr, pr
	}
	if p.kind.isCommand() {
		if msg := commandMismatch(cons.p.sig, prov.p.sig); msg != "" {
			r.errorf(b.rng, b.yaml, CodeTypeMismatch, "binding %s joins %s and %s whose signatures differ: %s", b.text, cons, prov, msg)
			return
		}
	} else if !assignable(prov.p.sig.Type, cons.p.sig.Type) {
		r.errorf(b.rng, b.yaml, CodeTypeMismatch, "binding %s joins %s, which publishes %s, to %s, which consumes %s",
			b.text, prov, prov.p.sig.Type, cons, cons.p.sig.Type)
		return
	}
	if !cons.p.exported && !prov.p.exported {
		r.links = append(r.links, link{consumer: cons, provider: prov, via: b})
		return
	}
	for _, cl := range leavesOf(cons.c, cons.iface, cons.p) {
		for _, pl := range leavesOf(prov.c, prov.iface, prov.p) {
			r.links = append(r.links, link{consumer: cl, provider: pl, via: b})
		}
	}
}

// commandMismatch compares what a sender passes and expects with what a
// receiver takes and returns, pairing parameters by name. It returns ""
// when they fit.
func commandMismatch(send, recv signature) string {
	if msg := paramsMismatch("argument", send.Args, recv.Args); msg != "" {
		return msg
	}
	if len(send.Results) == 0 {
		return ""
	}
	if len(recv.Results) == 0 {
		return "the sender expects results but the receiver returns none"
	}
	want, have := send.Results[len(send.Results)-1], recv.Results[len(recv.Results)-1]
	byName := make(map[string]*valueType, len(have))
	for _, p := range have {
		byName[p.Name] = p.Type
	}
	for _, p := range want {
		t, ok := byName[p.Name]
		switch {
		case !ok:
			return "the receiver returns no result " + quote(p.Name)
		case !assignable(t, p.Type):
			return "result " + quote(p.Name) + " is " + t.String() + " but the sender expects " + p.Type.String()
		}
	}
	return ""
}

func paramsMismatch(what string, send, recv []param) string {
	byName := make(map[string]*valueType, len(recv))
	for _, p := range recv {
		byName[p.Name] = p.Type
	}
	for _, p := range send {
		t, ok := byName[p.Name]
		switch {
		case !ok:
			return "the receiver takes no " + what + " " + quote(p.Name)
		case !assignable(p.Type, t):
			return what + " " + quote(p.Name) + " is sent as " + p.Type.String() + " but received as " + t.String()
		}
		delete(byName, p.Name)
	}
	for _, p := range recv {
		if _, missing := byName[p.Name]; missing {
			return "the sender does not pass " + what + " " + quote(p.Name)
		}
	}
	return ""
}

// resolveOpen handles bindings to open kinds once every other binding is
// known. The other side depends on the open component for the required
// interfaces nothing else binds; otherwise the open component relays what
// the other side publishes and is applied after it.
func (r *resolver) resolveOpen() {
	for _, ob := range r.open {
		needs := false
		for _, req := range ob.other.required {
			if !ob.other.isBound(req.name) {
				needs = true
				markBound(ob.other, req.name)
			}
		}
		consumer, provider := ob.open, ob.other
		if needs {
			consumer, provider = ob.other, ob.open
		}
		r.links = append(r.links, link{consumer: pinRef{c: consumer}, provider: pinRef{c: provider}, via: ob.b})
	}
}
