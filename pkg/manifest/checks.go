package manifest

import (
	"fmt"
	"strings"
	"time"

	"github.com/xosplan/xosplan/internal/quartz"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
)

// check runs the per-component checks of one application after
// resolution: configuration values, kind rules, required interfaces.
func (r *resolver) check(app *application) {
	scripted := 0
	var walk func(c *component)
	walk = func(c *component) {
		r.configure(c)
		switch c.kind {
		case KindScriptedComponent:
			scripted++
			if scripted > 1 {
				r.errorf(c.kindRng, join(c.yaml, "type"), CodeScriptedMultiple,
					"a manifest may hold only one scripted.Component (the platform's result is undefined with several); this is the %s", ordinal(scripted))
			}
			r.checkScripted(c)
		case KindComponentFactory:
			r.checkFactory(c)
		case KindConstants:
			r.checkConstants(c)
		case KindWorkflow:
			r.checkWorkflowSchedule(c)
			r.checkWorkflows(c)
		}
		r.checkRequired(c)
		for _, ch := range c.children {
			walk(ch)
		}
	}
	walk(app.root)
}

func ordinal(n int) string {
	switch n {
	case 2:
		return "second"
	case 3:
		return "third"
	}
	return "next"
}

// pinAt returns the interface name and the pin of c that an
// "interface.pin" key names; the pin is nil when there is none.
func pinAt(c *component, key string) (string, *pin) {
	ifn, pn, ok := strings.Cut(key, ".")
	if f := c.ifaceByName[ifn]; ok && f != nil {
		return ifn, f.pin(pn)
	}
	return ifn, nil
}

// configure checks c's configuration map against its pins and passes
// values down re-exported pins. Parents run first, so a value set from
// above overrides the child's own default.
func (r *resolver) configure(c *component) {
	for _, e := range c.config {
		ifn, p := pinAt(c, e.key)
		if p == nil {
			if (c.known != nil && c.known.OpenConfiguration) || (c.kind != "" && c.known == nil) {
				setValue(c, e.key, e.value, false)
				continue
			}
			r.errorf(e.keyRng, e.yaml, CodeUnknownPin, "configuration key %q names no configuration pin of %s%s", e.key, c.describe(), hint(c, e.key))
			continue
		}
		if !p.valid {
			continue
		}
		if p.kind != pinConfiguration {
			r.errorf(e.keyRng, e.yaml, CodeUnknownPin, "configuration key %q names a %s pin; only configuration pins take values", e.key, p.kind)
			continue
		}
		for _, leaf := range leavesOf(c, ifn, p) {
			if bad, msg := fits(e.value, leaf.p.sig.Type); msg != "" {
				// The message describes the value by its kind; a secret's
				// source line is not shown either.
				r.diags = r.diags.Append(diag.Diagnostic{Severity: diag.Error, Code: CodeConfigType, Range: bad.Range, Path: e.yaml,
					Summary:   fmt.Sprintf("value of %q does not fit %s: %s", e.key, leaf.p.sig.String(pinConfiguration), msg),
					Sensitive: isSensitive(e.key)})
				break
			}
			setValue(leaf.c, leaf.iface+"."+leaf.p.name, e.value, leaf.c != c)
		}
	}
}

// hint suggests the right key for a misspelt configuration key.
func hint(c *component, key string) string {
	if c.kind == KindComponentFactory && strings.HasPrefix(key, "factory.") {
		return "; a factory's settings are component.application, component.discoveryScript and component.discoverySchedule"
	}
	return ""
}

// valuePath is the YAML path of a configuration value of c: where c sets
// it, or where c would set it when an ancestor passes it down.
func valuePath(c *component, key string) string {
	if e := c.configByKey[key]; e != nil {
		return e.yaml
	}
	return join(c.yaml, "configuration."+key)
}

func setValue(c *component, key string, v *yamlsrc.Node, fromAbove bool) {
	if c.values == nil {
		c.values = map[string]*yamlsrc.Node{}
	}
	if _, set := c.values[key]; set && !fromAbove {
		return
	}
	c.values[key] = v
}

// isExpression reports whether a string is evaluated by the platform
// ("{$.x}", "${x}"), so that its type is known only then.
func isExpression(n *yamlsrc.Node) bool {
	return n.Kind == yamlsrc.Scalar && (strings.Contains(n.Value, "{$") || strings.Contains(n.Value, "${"))
}

// fits checks a value against a type. It returns the offending node and a
// message, or an empty message when the value fits.
func fits(n *yamlsrc.Node, t *valueType) (*yamlsrc.Node, string) {
	if n.IsNull() || t == nil || t.Kind == tObject || isExpression(n) {
		return n, ""
	}
	switch t.Kind {
	case tString, tBytes, tUnit:
		if n.Kind != yamlsrc.Scalar {
			return n, "expected " + t.String() + ", found " + n.Describe()
		}
	case tInt:
		if _, ok := n.Int(); !ok {
			return n, "expected an integer, found " + n.Describe()
		}
	case tBool:
		if _, ok := n.Bool(); !ok {
			return n, "expected true or false, found " + n.Describe()
		}
	case tList:
		return fitsList(n, t)
	case tMap:
		return fitsMap(n, t)
	}
	return n, ""
}

func fitsList(n *yamlsrc.Node, t *valueType) (*yamlsrc.Node, string) {
	if n.Kind != yamlsrc.Sequence {
		return n, "expected a list, found " + n.Describe()
	}
	for _, it := range n.Items() {
		if bad, msg := fits(it, t.Elem); msg != "" {
			return bad, "list item: " + msg
		}
	}
	return n, ""
}

func fitsMap(n *yamlsrc.Node, t *valueType) (*yamlsrc.Node, string) {
	if n.Kind != yamlsrc.Mapping {
		return n, "expected a map, found " + n.Describe()
	}
	for _, p := range n.Pairs() {
		if t.Key.Kind == tInt {
			if _, ok := p.Key.Int(); !ok {
				return p.Key, "map key: expected an integer, found " + p.Key.Describe()
			}
		}
		if bad, msg := fits(p.Value, t.Elem); msg != "" {
			return bad, "entry " + quote(p.Key.Value) + ": " + msg
		}
	}
	return n, ""
}

// stringValue returns a configuration value as text ("" when unset or not
// a scalar) and its node (nil when unset).
func stringValue(c *component, key string) (string, *yamlsrc.Node) {
	v := c.values[key]
	if v.IsNull() {
		return "", nil
	}
	s, _ := v.String()
	return s, v
}

func (r *resolver) checkScripted(c *component) {
	var missing []string
	for _, k := range []string{"factory.name", "factory.launchScript", "factory.destroyScript"} {
		if s, _ := stringValue(c, k); s == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		r.errorf(c.rng, c.yaml, CodeScriptedMissingScript, "scripted.Component %q needs %s", c.name, strings.Join(missing, " and "))
	}
	if s, v := stringValue(c, "factory.healthCheckInterval"); v != nil {
		if d, err := time.ParseDuration(s); err != nil || d < time.Second {
			r.errorf(v.Range, valuePath(c, "factory.healthCheckInterval"), CodeBadHealthInterval,
				"factory.healthCheckInterval %q is not a duration of at least a second (such as 30s or 5m)", s)
		}
	}
	if cs := c.values["factory.commandScripts"]; cs != nil {
		for _, p := range cs.Pairs() {
			if _, q := pinAt(c, p.Key.Value); q == nil || q.kind != pinReceive {
				r.errorf(p.Key.Range, join(valuePath(c, "factory.commandScripts"), p.Key.Value), CodeCommandScriptPin, "commandScripts entry %q names no receive-command pin of %q", p.Key.Value, c.name)
			}
		}
	}
	for _, f := range c.ifaces {
		if f.implicit {
			continue
		}
		for _, p := range f.pins {
			if p.valid && p.kind != pinConfiguration && p.kind != pinPublish && p.kind != pinReceive {
				r.errorf(p.rng, p.yaml, CodeScriptedPinKind,
					"a scripted.Component can have configuration, publish-signal and receive-command pins; %s.%s is %s", f.name, p.name, p.kind)
			}
		}
	}
}

func (r *resolver) checkFactory(c *component) {
	keys := []string{"component.application", "component.discoveryScript", "component.discoverySchedule"}
	var set, unset []string
	for _, k := range keys {
		if s, _ := stringValue(c, k); s != "" {
			set = append(set, k)
		} else {
			unset = append(unset, k)
		}
	}
	if len(set) > 0 && len(unset) > 0 {
		r.errorf(c.rng, c.yaml, CodeFactoryPartialDiscovery,
			"factory %q sets %s but not %s: discovery needs all three or none", c.name, strings.Join(set, ", "), strings.Join(unset, ", "))
	}
	if s, v := stringValue(c, "component.discoverySchedule"); v != nil {
		r.checkSchedule(v, valuePath(c, "component.discoverySchedule"), s, true)
	}
	for _, f := range c.ifaces {
		if f.implicit || f.name == "component" || f.name == "factory" {
			continue
		}
		for _, p := range f.pins {
			if !p.valid || p.kind == pinConfiguration {
				continue
			}
			t := p.sig.Type
			if p.kind != pinConsume || t == nil || t.Kind != tMap || t.Key.Kind != tString || t.Elem.Kind != tString {
				r.errorf(p.rng, p.yaml, CodeScriptedPinKind,
					"a scripted.ComponentFactory's own interfaces hold configuration pins and consume-signal(map<string, string>) references; %s.%s is %s",
					f.name, p.name, p.sig.String(p.kind))
			}
		}
	}
	if !c.isBound("component") {
		r.diags = r.diags.Warnf(c.rng, c.yaml, CodeFactoryNotExported,
			"factory %q: its component interface is not bound to a top-level interface, so the platform will not recognise it as a factory (add component: {\"*\": bind(%s#component.*)})", c.name, c.path)
	}
}

func (r *resolver) checkSchedule(v *yamlsrc.Node, path, s string, discovery bool) {
	perMinute, err := quartz.Check(s)
	switch {
	case err != nil:
		r.errorf(v.Range, path, CodeBadSchedule, "schedule %q is not a Quartz cron expression: %v", s, err)
	case discovery && perMinute > 1:
		r.diags = r.diags.Warnf(v.Range, path, CodeScheduleTooFrequent,
			"discovery schedule %q fires %d times a minute; discovery runs scripts through Docker, so intervals of a minute or more are preferred", s, perMinute)
	}
}

// checkWorkflows checks that triggers name pins of the component and
// that triggers, propagateStatus and schedule name declared workflows.
func (r *resolver) checkWorkflows(c *component) {
	wfs := c.values["configuration.workflows"]
	if wfs == nil || wfs.Kind != yamlsrc.Mapping {
		return // nothing to compare with (or an expression)
	}
	known := func(n *yamlsrc.Node, path string) {
		if s, ok := n.String(); ok && !isExpression(n) && wfs.Get(s) == nil {
			r.errorf(n.Range, path, CodeUnknownWorkflow, "workflow %q is not declared in configuration.workflows of %q", s, c.name)
		}
	}
	for _, p := range c.values["configuration.triggers"].Pairs() {
		path := join(valuePath(c, "configuration.triggers"), p.Key.Value)
		if _, q := pinAt(c, p.Key.Value); q == nil {
			r.errorf(p.Key.Range, path, CodeUnknownPin, "trigger %q names no pin of %q", p.Key.Value, c.name)
		}
		known(p.Value, path)
	}
	for _, it := range c.values["configuration.propagateStatus"].Items() {
		if it.Kind == yamlsrc.Mapping {
			for _, p := range it.Pairs() {
				known(p.Key, valuePath(c, "configuration.propagateStatus"))
			}
			continue
		}
		known(it, valuePath(c, "configuration.propagateStatus"))
	}
	for _, p := range c.values["configuration.schedule"].Pairs() {
		known(p.Key, join(valuePath(c, "configuration.schedule"), p.Key.Value))
	}
}

func (r *resolver) checkWorkflowSchedule(c *component) {
	for _, p := range c.values["configuration.schedule"].Pairs() {
		if s, ok := p.Value.String(); ok && !isExpression(p.Value) {
			r.checkSchedule(p.Value, join(valuePath(c, "configuration.schedule"), p.Key.Value), s, false)
		}
	}
}

// checkConstants checks that configuration.values sets declared
// publish-signal pins with values of their type.
func (r *resolver) checkConstants(c *component) {
	for _, p := range c.values["configuration.values"].Pairs() {
		_, q := pinAt(c, p.Key.Value)
		if q == nil || q.kind != pinPublish {
			r.errorf(p.Key.Range, join(valuePath(c, "configuration.values"), p.Key.Value), CodeUnknownPin, "constant %q names no publish-signal pin of %q", p.Key.Value, c.name)
			continue
		}
		if bad, msg := fits(p.Value, q.sig.Type); msg != "" {
			r.errorf(bad.Range, join(valuePath(c, "configuration.values"), p.Key.Value), CodeConfigType, "constant %q does not fit %s: %s", p.Key.Value, q.sig.String(q.kind), msg)
		}
	}
}

func (r *resolver) checkRequired(c *component) {
	for _, req := range c.required {
		switch {
		case c.ifaceByName[req.name] == nil:
			if c.kind != "" && c.known == nil {
				continue // unknown kinds may have interfaces we cannot see
			}
			r.errorf(req.rng, join(c.yaml, "required"), CodeUnknownInterface, "%s requires interface %q but has no such interface", c.describe(), req.name)
		case !c.isBound(req.name):
			r.errorf(req.rng, join(c.yaml, "required"), CodeRequiredUnbound,
				"required interface %q of %s is not bound: add a binding such as [%s, <component>]", req.name, c.describe(), c.path)
		}
	}
}
