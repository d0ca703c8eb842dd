package manifest

// Model policies — the application's `policies:` map (an xosplan
// extension of the format): each entry is a model policy (XOS) that
// pkg/policy runs before every plan, compiled to a graph.Policy named
// "<application>.<entry>", so that the resources it derives,
// "<application>.<entry>.<name>", sit under the application as its
// components do.
//
//	application:
//	  components: …
//	  policies:
//	    interfaces:
//	      implementation: policies/interfaces.sh   # relative to the manifest's folder
//	      targets: [net-a, vpc.net-b]              # component paths
//	      types: [scripted.Component]              # optional: also read every resource of these types
//	      timeout: 60                              # optional: seconds per run
//	      configuration: {mtu: 1500}               # optional: the policy's properties
//
// Problems: a policies map below the application (manifest.unknown_key),
// the wrong shapes (manifest.structure), an unknown key
// (manifest.unknown_key), a bad entry name (manifest.bad_name), a target
// that is no component (manifest.unknown_component), and an
// implementation that is a URL, missing, not a regular file or outside
// the configuration root (manifest.policy_implementation: it runs at plan
// time).

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// policyDecl is one entry of `policies:`.
type policyDecl struct {
	name    string
	rng     diag.Range
	yaml    string
	impl    string
	implRng diag.Range
	targets []ident
	types   []string
	timeout time.Duration
	config  map[string]graph.Value
}

func (l *loader) policies(c *component, key, n *yamlsrc.Node, path string) {
	if c.path != "" {
		l.diags = l.diags.Errorf(key.Range, path, CodeUnknownKey, "`policies` belong to the application itself, not to %s", c.describe())
		return
	}
	if !l.expectMap(n, path, "`policies`") {
		return
	}
	for _, p := range n.Pairs() {
		ppath := join(path, p.Key.Value)
		if !l.name(p.Key, ppath, "policy", ".#,") {
			continue
		}
		if !l.expectMap(p.Value, ppath, "a policy") {
			if p.Value.IsNull() {
				l.diags = l.diags.Errorf(p.Key.Range, ppath, CodeStructure, "policy %q needs an implementation", p.Key.Value)
			}
			continue
		}
		d := &policyDecl{name: p.Key.Value, rng: p.Key.Range, yaml: ppath}
		for _, e := range p.Value.Pairs() {
			l.policyField(d, e, join(ppath, e.Key.Value))
		}
		if d.impl == "" {
			if p.Value.Get("implementation") == nil {
				l.diags = l.diags.Errorf(p.Key.Range, ppath, CodeStructure, "policy %q needs an implementation", d.name)
			}
			continue
		}
		c.app.policies = append(c.app.policies, d)
	}
}

// policyField reads one field e of the policy d, at epath.
func (l *loader) policyField(d *policyDecl, e yamlsrc.Pair, epath string) {
	switch e.Key.Value {
	case "implementation":
		s, ok := e.Value.String()
		if !ok || !e.Value.IsString() || s == "" {
			l.diags = l.diags.Errorf(e.Value.Range, epath, CodeStructure, "`implementation` must be the path of an executable, found %s", e.Value.Describe())
			return
		}
		d.impl, d.implRng = s, e.Value.Range
	case "targets":
		d.targets = append(d.targets, l.stringList(e.Value, epath, "`targets` lists component paths")...)
	case "types":
		for _, s := range l.stringList(e.Value, epath, "`types` lists component type names") {
			d.types = append(d.types, s.name)
		}
	case "timeout":
		secs, ok := e.Value.Int()
		if !ok || secs <= 0 {
			l.diags = l.diags.Errorf(e.Value.Range, epath, CodeStructure, "`timeout` must be a positive number of seconds, found %s", e.Value.Describe())
			return
		}
		d.timeout = time.Duration(secs) * time.Second
	case "configuration":
		if !l.expectMap(e.Value, epath, "a policy's `configuration`") {
			return
		}
		v, err := graph.Canonicalize(e.Value.Interface())
		if err != nil {
			l.diags = l.diags.Errorf(e.Value.Range, epath, CodeStructure, "a policy's `configuration` must hold JSON values: %v", err)
			return
		}
		d.config, _ = v.(map[string]graph.Value)
	default:
		l.diags = l.diags.Errorf(e.Key.Range, epath, CodeUnknownKey,
			"unknown key %q in policy %q (expected implementation, targets, types, timeout or configuration)", e.Key.Value, d.name)
	}
}

// stringList reads a list of non-empty strings; what describes it in the
// diagnostic of a wrong shape.
func (l *loader) stringList(n *yamlsrc.Node, path, what string) []ident {
	if n.Kind != yamlsrc.Sequence {
		l.diags = l.diags.Errorf(n.Range, path, CodeStructure, "%s; found %s", what, n.Describe())
		return nil
	}
	var out []ident
	for _, it := range n.Items() {
		s, ok := it.String()
		if !ok || it.Kind != yamlsrc.Scalar || s == "" {
			l.diags = l.diags.Errorf(it.Range, path, CodeStructure, "%s; found %s", what, it.Describe())
			continue
		}
		out = append(out, ident{name: s, rng: it.Range})
	}
	return out
}

// addPolicies adds the applications' policies to g, their targets
// checked against the components and their implementations against the
// configuration root (rootDirs; the manifest's folder when empty, as for
// reading the manifest itself).
func (env *environment) addPolicies(g *graph.Graph, rootDirs []string) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, app := range env.apps {
		for _, d := range app.policies {
			p := graph.Policy{Name: app.name + "." + d.name, Range: d.rng, Timeout: d.timeout, Targets: []string{}, Properties: map[string]graph.Value{}}
			for k, v := range d.config {
				p.Properties[k] = v
			}
			if len(d.types) > 0 {
				types := make([]graph.Value, len(d.types))
				for i, t := range d.types {
					types[i] = t
				}
				p.Properties["types"] = types
			}
			ok := true
			for _, t := range d.targets {
				addr := app.name + "." + t.name
				if _, found := g.Resource(addr); !found {
					diags = diags.Errorf(t.rng, join(d.yaml, "targets"), CodeUnknownComponent, "policy %q targets %q, which is no component of application %q", d.name, t.name, app.name)
					ok = false
					continue
				}
				p.Targets = append(p.Targets, addr)
			}
			slices.Sort(p.Targets)
			p.Targets = slices.Compact(p.Targets)
			exe, problem := policyExecutable(app.file, d.impl, rootDirs)
			if problem != "" {
				diags = diags.Errorf(d.implRng, join(d.yaml, "implementation"), CodePolicyImplementation, "policy %q cannot run %q: %s", d.name, d.impl, problem)
				ok = false
			}
			if !ok {
				continue
			}
			p.Implementation = exe
			if err := g.AddPolicy(p); err != nil {
				diags = diags.Errorf(d.rng, d.yaml, CodeDuplicateAddress, "policy %q: %v", p.Name, err)
			}
		}
	}
	return diags
}

// policyExecutable returns the absolute path of impl, relative to the
// manifest file's folder, once it is a regular file inside the root, or
// why it is not.
func policyExecutable(file, impl string, rootDirs []string) (string, string) {
	if strings.Contains(impl, "://") {
		return "", "a policy runs a file of the configuration, not a URL"
	}
	exe := filepath.FromSlash(impl)
	if !filepath.IsAbs(exe) {
		exe = filepath.Join(filepath.Dir(file), exe)
	}
	abs, err := filepath.Abs(exe)
	if err != nil {
		return "", err.Error()
	}
	if len(rootDirs) == 0 {
		rootDirs = []string{filepath.Dir(file)}
	}
	root, err := userfile.NewRoot(rootDirs...)
	if err != nil {
		return "", err.Error()
	}
	if _, err := root.Confine(abs); err != nil {
		if errors.Is(err, userfile.ErrOutsideRoot) {
			return "", "it is outside the configuration root (" + root.String() + "); a policy runs at plan time and only from inside it"
		}
		return "", reason(err)
	}
	// Stat, not open: a named pipe is refused without being waited on.
	info, err := os.Stat(abs)
	if err != nil {
		return "", reason(err)
	}
	if !info.Mode().IsRegular() {
		return "", "not a regular file (" + userfile.DescribeMode(info.Mode()) + ")"
	}
	return abs, ""
}

// reason is err without the path it names, which the diagnostic quotes
// as written.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var ue *userfile.Error
	if errors.As(err, &ue) {
		if ue.Detail != "" {
			return ue.Reason.Error() + " (" + ue.Detail + ")"
		}
		return ue.Reason.Error()
	}
	return err.Error()
}
