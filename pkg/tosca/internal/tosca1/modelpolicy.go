package tosca1

// Phase 9 (model policies) — a policy of type xosplan.policies.ModelPolicy
// (normative.Xosplan) becomes a graph.Policy that pkg/policy runs before
// every plan: its name, its implementation (an absolute path), its
// targets (node templates, groups expanded to their members, sorted) and
// its other properties (types, and any a derived type adds).
//
// A model policy runs at plan time, on the machine that plans a pull
// request, so its implementation is held to more than an operation's
// (which is a warning here and refused by apply): an implementation that
// is a URL, that is missing or not a regular file, that resolves (links
// followed) outside the configuration root, or that lies inside a CSAR
// archive (nothing runs from inside one) is an error
// (tosca.policy_implementation), and the policy is left out of the graph.

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// modelPolicyType is the type every model policy derives from.
const modelPolicyType = "xosplan.policies.ModelPolicy"

// renderModelPolicies adds g's model policies.
func (c *compiler) renderModelPolicies(g *graph.Graph) {
	for _, pt := range c.topo.policies {
		if pt.typ == nil || !c.derivesName(pt.typ, modelPolicyType) {
			continue
		}
		impl, given := pt.props["implementation"].(string)
		if !given {
			// Missing (tosca.missing_property) or not a string
			// (tosca.value): reported where the properties are read.
			continue
		}
		at := pt.key
		if n := pt.n.Get("properties").Get("implementation"); n != nil {
			at = n.Range
		}
		path := pt.path + ".properties.implementation"
		exe, ok := c.policyExecutable(pt, impl, at, path)
		if !ok {
			continue
		}
		p := graph.Policy{Name: pt.name, Implementation: exe, Range: pt.key, Properties: map[string]graph.Value{}}
		for k, v := range pt.props {
			switch k {
			case "implementation":
			case "timeout":
				if secs, ok := v.(int64); ok && secs > 0 {
					p.Timeout = time.Duration(secs) * time.Second
				}
			default:
				p.Properties[k] = v
			}
		}
		for _, nt := range pt.targets {
			p.Targets = append(p.Targets, nt.name)
		}
		slices.Sort(p.Targets)
		p.Targets = slices.Compact(p.Targets)
		if p.Targets == nil {
			p.Targets = []string{}
		}
		// Names are unique in the topology's policies list only by
		// convention; a second one of a name is reported.
		if err := g.AddPolicy(p); err != nil {
			c.errorf(pt.key, pt.path, core.CodeDuplicateKey, "model policy %q is declared twice; policies derive under their names, which must be unique", pt.name)
		}
	}
}

// policyExecutable returns the absolute path of a model policy's
// implementation once it is known to be a regular file inside the
// configuration root, and reports it otherwise.
func (c *compiler) policyExecutable(pt *policyTpl, impl string, at diag.Range, path string) (string, bool) {
	fail := func(why string, args ...any) (string, bool) {
		c.errorf(at, path, core.CodePolicyImplementation, "model policy %q cannot run %q: "+why, append([]any{pt.name, impl}, args...)...)
		return "", false
	}
	switch {
	case impl == "":
		return fail("the implementation is empty")
	case strings.Contains(impl, "://"):
		return fail("a model policy runs a file of the configuration, not a URL")
	}
	exe := filepath.FromSlash(impl)
	if !filepath.IsAbs(exe) {
		exe = filepath.Join(filepath.Dir(pt.key.File), exe)
	}
	if c.Archive {
		return fail("nothing runs from inside an archive; unpack it to plan it with policies")
	}
	abs, err := filepath.Abs(exe)
	if err != nil {
		return fail("%v", plainErr(err))
	}
	if _, err := c.FSRoot.Confine(abs); err != nil {
		if errors.Is(err, userfile.ErrOutsideRoot) {
			return fail("it is outside the configuration root (%s); a model policy runs at plan time and only from inside it", c.FSRoot)
		}
		return fail("%v", plainErr(err))
	}
	f, _, err := userfile.Open(c.Ctx, abs, userfile.Options{Root: c.FSRoot})
	if err != nil {
		return fail("%v", plainErr(err))
	}
	f.Close()
	return abs, true
}
