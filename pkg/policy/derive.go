package policy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/process"
)

// Options tune Derive. The zero value of each field but Root means its
// default.
type Options struct {
	// Root lists the folders of the configuration root: a policy's
	// executable must resolve (links followed) to a regular file inside
	// one of them. Empty refuses every policy.
	Root []string
	// Timeout bounds one run of a policy without a timeout of its own
	// (default 1 minute).
	Timeout time.Duration
	// MaxOutput bounds what one run prints on stdout (default 16 MiB, the
	// limit of a configuration file).
	MaxOutput int
	// MaxResources bounds the resources one run derives (default 10,000).
	MaxResources int
	// MaxRounds bounds the rounds of the fixed point (default 10).
	MaxRounds int
	// Feedback is what the recorded state the plan is made against holds
	// of each resource, by address: a policy whose "feedback" property is
	// true reads it with each resource, and the result's Policed says
	// which changed_by_step version the policies saw. Nil reads none.
	Feedback map[string]Feedback
}

// Feedback is what the recorded state holds of one resource, as a policy
// that reads feedback reads it: what its actuator reported, secrets
// already masked by the caller, and when a step last changed it (XOS's
// changed_by_step).
type Feedback struct {
	Attributes, Signals        map[string]graph.Value
	InstanceID                 string
	Active, Converging, Failed bool
	BackendCode                int
	ChangedByStep              time.Time
}

// Defaults of Options.
const (
	DefaultTimeout      = time.Minute
	DefaultMaxOutput    = 16 << 20
	DefaultMaxResources = 10_000
	DefaultMaxRounds    = 10
)

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.MaxResources <= 0 {
		o.MaxResources = DefaultMaxResources
	}
	if o.MaxRounds <= 0 {
		o.MaxRounds = DefaultMaxRounds
	}
	return o
}

// Derive runs g's policies to their fixed point and returns the graph a
// plan covers: g's declared resources, edges and policies, and every
// resource and edge the policies derive, each marked with its policy
// (Resource.DerivedBy). Resources g holds already marked as derived are
// left out and derived again, so that Derive of its own result gives the
// same graph. A graph without policies is returned as it is. When the
// diagnostics have errors the graph is g's declared part alone, not to be
// planned. Derive never reads the recorded state: a policy sees
// declarative state only (the package documentation says what).
func Derive(ctx context.Context, g *graph.Graph, opts Options) (*graph.Graph, diag.Diagnostics) {
	policies := g.Policies()
	if len(policies) == 0 {
		return g, nil
	}
	opts = opts.withDefaults()
	d := &deriver{g: g, opts: opts, policies: policies, outputs: map[string]output{}, inputs: map[string][]byte{}}
	declared, diags := d.assemble(nil)
	if diags.HasErrors() {
		return declared, diags
	}
	cur := declared
	for round := 1; round <= opts.MaxRounds; round++ {
		changed, next, stop := d.round(ctx, cur)
		if len(stop) > 0 {
			return declared, diags.Extend(stop)
		}
		cur = next
		if len(changed) == 0 {
			for _, cycle := range cur.Cycles() {
				p, _ := cur.Policy(cycleOwner(cur, cycle))
				diags = diags.Errorf(p.Range, "", CodeDependencyCycle, "the edges policy %s derived close a dependency cycle: %s", p.Name, graph.CyclePath(cycle))
			}
			if diags.HasErrors() {
				return declared, diags
			}
			cur.Policed = d.policed(cur)
			return cur, diags
		}
		if round == opts.MaxRounds {
			names := make([]string, len(changed))
			for i, p := range changed {
				names[i] = p.Name
			}
			return declared, diags.Errorf(changed[0].Range, "", CodeNoFixedPoint,
				"model policies %s still changed what they derive or set after %d rounds: a cycle that does not terminate; a policy must derive the same resources and set the same values from its own output (a policy that reads the types it derives, or the values it sets, must reach a state where it changes nothing)",
				strings.Join(names, ", "), opts.MaxRounds)
		}
	}
	return cur, diags
}

// round runs, in dependency order, each policy whose input in cur is not
// the one it last ran on, and returns the policies whose output changed
// and the graph with the outputs; stop, when not empty, is what ends
// Derive.
func (d *deriver) round(ctx context.Context, cur *graph.Graph) (changed []graph.Policy, next *graph.Graph, stop diag.Diagnostics) {
	next = cur
	for _, p := range d.order() {
		if err := ctx.Err(); err != nil {
			return nil, nil, stop.Errorf(p.Range, "", CodeCanceled, "model policies stopped before %s ran: %v", p.Name, context.Cause(ctx))
		}
		rs, es := inputOf(next, p)
		in, err := encodeInput(p, rs, es, d.feedbackFor(p))
		if err != nil {
			return nil, nil, stop.Errorf(p.Range, "", CodeBadOutput, "the input of policy %s cannot be written: %v", p.Name, err)
		}
		if prev, ran := d.inputs[p.Name]; ran && bytes.Equal(prev, in) {
			continue
		}
		d.inputs[p.Name] = in
		out, problem := d.run(ctx, p, in, rs)
		if problem != nil {
			return nil, nil, stop.Append(*problem)
		}
		if prev, ran := d.outputs[p.Name]; ran && bytes.Equal(prev.canonical, out.canonical) {
			continue
		}
		d.outputs[p.Name] = out
		changed = append(changed, p)
		built, buildDiags := d.build()
		if buildDiags.HasErrors() {
			return nil, nil, buildDiags
		}
		next = built
	}
	return changed, next, nil
}

// feedbackFor returns the recorded feedback p reads: Options.Feedback
// when its "feedback" property is true (an empty map when none is
// given), else nil.
func (d *deriver) feedbackFor(p graph.Policy) map[string]Feedback {
	if !readsFeedback(p) {
		return nil
	}
	if d.opts.Feedback == nil {
		return map[string]Feedback{}
	}
	return d.opts.Feedback
}

func readsFeedback(p graph.Policy) bool {
	on, _ := p.Properties["feedback"].(bool)
	return on
}

// policed returns what the policies read in g, the fixed point: for each
// resource one of them read, the changed_by_step version the prior state
// records of it and whether a policy read its feedback.
func (d *deriver) policed(g *graph.Graph) map[string]graph.PolicedRead {
	out := map[string]graph.PolicedRead{}
	for _, p := range d.policies {
		rs, _ := inputOf(g, p)
		for _, r := range rs {
			pr := out[r.Address]
			pr.Step = d.opts.Feedback[r.Address].ChangedByStep
			pr.Feedback = pr.Feedback || readsFeedback(p)
			out[r.Address] = pr
		}
	}
	return out
}

// deriver holds the work of one Derive.
type deriver struct {
	g        *graph.Graph
	opts     Options
	policies []graph.Policy
	// outputs holds each policy's last output; inputs the input of its
	// last run.
	outputs map[string]output
	inputs  map[string][]byte
}

// build returns the declared part of g with every policy's last output.
func (d *deriver) build() (*graph.Graph, diag.Diagnostics) {
	return d.assemble(d.outputs)
}

// assemble returns the declared part of g (its resources not marked as
// derived, the edges between them, its policies) with the resources and
// edges of outputs, the last output of each policy. What the graph
// refuses is a diagnostic: an address two policies or a policy and the
// configuration take (CodeAddressConflict), anything else a bug of
// xosplan (CodeInternal), since the declared part comes from a graph that
// held it already and run checked the edges.
func (d *deriver) assemble(outputs map[string]output) (*graph.Graph, diag.Diagnostics) {
	edits, diags := d.edits(outputs)
	if diags.HasErrors() {
		out, more := d.declared(nil)
		return out, diags.Extend(more)
	}
	out, more := d.declared(edits)
	diags = diags.Extend(more)
	diags = d.addDerived(out, outputs, diags)
	if diags.HasErrors() {
		return out, diags
	}
	return out, d.addDerivedEdges(out, outputs, diags)
}

// refused is the diagnostic of what the graph refuses to keep.
func refused(diags diag.Diagnostics, at diag.Range, what string, err error) diag.Diagnostics {
	return diags.Errorf(at, "", CodeInternal, "%s cannot be kept: %v", what, err)
}

// declared is the declared part of d.g: its resources not marked as
// derived, each with the values the policies set on it (edits, by
// address), the edges between them, and its policies.
func (d *deriver) declared(edits map[string][]edit) (*graph.Graph, diag.Diagnostics) {
	var diags diag.Diagnostics
	out := graph.New()
	out.Sources, out.Outputs, out.SensitiveOutputs, out.Secrets = d.g.Sources, d.g.Outputs, d.g.SensitiveOutputs, d.g.Secrets
	for _, r := range d.g.Resources() {
		if r.DerivedBy == "" {
			if es := edits[r.Address]; len(es) > 0 {
				var problem *diag.Diagnostic
				if r, problem = applyEdits(r, es); problem != nil {
					diags = diags.Append(*problem)
				}
			}
			if err := out.AddResource(r); err != nil {
				diags = refused(diags, r.Range, "resource "+r.Address, err)
			}
		}
	}
	for _, e := range d.g.Edges() {
		if _, ok := out.Resource(e.Source); ok {
			if _, ok := out.Resource(e.Target); ok {
				if err := out.AddEdge(e); err != nil {
					diags = refused(diags, e.Range, "the dependency of "+e.Source+" on "+e.Target, err)
				}
			}
		}
	}
	for _, p := range d.policies {
		if err := out.AddPolicy(p); err != nil {
			diags = refused(diags, p.Range, "model policy "+p.Name, err)
		}
	}
	return out, diags
}

// addDerived adds to out the resources of each policy's output, in policy
// order; an address already taken is CodeAddressConflict.
func (d *deriver) addDerived(out *graph.Graph, outputs map[string]output, diags diag.Diagnostics) diag.Diagnostics {
	for _, p := range d.policies {
		o, ok := outputs[p.Name]
		if !ok {
			continue
		}
		for _, dr := range o.resources {
			if err := out.AddResource(dr.res); err != nil {
				prev, _ := out.Resource(dr.res.Address)
				owner := "a resource the configuration declares"
				if prev != nil && prev.DerivedBy != "" {
					owner = "a resource policy " + prev.DerivedBy + " derives"
				}
				diags = diags.Errorf(p.Range, "", CodeAddressConflict, "policy %s derives %s, which is already %s; rename the policy or what it derives", p.Name, dr.res.Address, owner)
			}
		}
	}
	return diags
}

// addDerivedEdges adds to out the edges of each policy's output whose
// target out holds, in policy order.
func (d *deriver) addDerivedEdges(out *graph.Graph, outputs map[string]output, diags diag.Diagnostics) diag.Diagnostics {
	for _, p := range d.policies {
		for _, e := range outputs[p.Name].edges {
			if _, ok := out.Resource(e.Target); !ok {
				// Another policy derived the target when p ran and
				// derives it no longer: p read it, so p's input has
				// changed and p runs again before a fixed point, where
				// its edges are checked anew (run).
				continue
			}
			if err := out.AddEdge(e); err != nil {
				diags = refused(diags, e.Range, "the dependency of "+e.Source+" on "+e.Target+" that policy "+p.Name+" derives", err)
			}
		}
	}
	return diags
}

// order returns the policies in dependency order by their last outputs: a
// policy that reads a resource another derives runs after it. Policies
// that read each other's resources (a cycle) keep name order among
// themselves; the rounds settle them.
func (d *deriver) order() []graph.Policy {
	n := len(d.policies)
	next := make([][]int, n)
	for i, a := range d.policies {
		for j, b := range d.policies {
			if i != j && reads(b, d.outputs[a.Name]) {
				next[i] = append(next[i], j)
			}
		}
	}
	idx, ok := graph.Kahn(next)
	if !ok {
		placed := make([]bool, n)
		for _, i := range idx {
			placed[i] = true
		}
		for i := range n {
			if !placed[i] {
				idx = append(idx, i)
			}
		}
	}
	out := make([]graph.Policy, n)
	for k, i := range idx {
		out[k] = d.policies[i]
	}
	return out
}

// reads reports whether policy p reads a resource of o.
func reads(p graph.Policy, o output) bool {
	types := typesOf(p)
	for _, dr := range o.resources {
		if slices.Contains(p.Targets, dr.res.Address) || readsType(dr.res, types) {
			return true
		}
	}
	return false
}

// run runs p once on in and returns its output, its resources completed
// (their policy, position, driver) and its edges checked against what it
// may read (rs).
func (d *deriver) run(ctx context.Context, p graph.Policy, in []byte, rs []*graph.Resource) (output, *diag.Diagnostic) {
	problem := func(code, format string, args ...any) *diag.Diagnostic {
		return policyProblem(p, code, format, args...)
	}
	exe, err := d.confine(ctx, p.Implementation)
	if err != nil {
		return output{}, problem(CodeOutsideRoot, "policy %s cannot run: %v", p.Name, err)
	}
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = d.opts.Timeout
	}
	res, err := process.RunProgram(ctx, process.Program{
		Path:      exe,
		Dir:       filepath.Dir(exe),
		Env:       []string{"PATH=" + os.Getenv("PATH"), "XOSPLAN_POLICY=" + p.Name},
		Stdin:     in,
		Timeout:   timeout,
		MaxStdout: d.opts.MaxOutput,
	})
	switch {
	case errors.Is(err, process.ErrTimeout):
		return output{}, problem(CodeTimeout, "policy %s ran past its timeout of %s; its process group was killed", p.Name, timeout)
	case errors.Is(err, process.ErrReplyTooLarge):
		return output{}, problem(CodeOutputTooLarge, "policy %s printed more than %s on stdout", p.Name, userfile.SizeText(int64(d.opts.MaxOutput)))
	case ctx.Err() != nil:
		return output{}, problem(CodeCanceled, "policy %s stopped: %v", p.Name, context.Cause(ctx))
	case err != nil:
		return output{}, problem(CodeFailed, "policy %s failed: %v", p.Name, err)
	}
	out, err := parseOutput(res.Stdout, p.Name+".", d.opts.MaxResources)
	if err != nil {
		return output{}, problem(CodeBadOutput, "policy %s printed an output xosplan cannot use: %v", p.Name, err)
	}
	if problem := completeOutput(p, out, rs); problem != nil {
		return output{}, problem
	}
	return out, nil
}

// policyProblem is an error diagnostic at the policy p.
func policyProblem(p graph.Policy, code, format string, args ...any) *diag.Diagnostic {
	return &diag.Diagnostic{Severity: diag.Error, Code: code, Range: p.Range, Summary: fmt.Sprintf(format, args...)}
}

// completeOutput completes the resources of p's output out (their policy,
// position, driver and types) and checks its edges against what p may
// read (rs) and derives.
func completeOutput(p graph.Policy, out output, rs []*graph.Resource) *diag.Diagnostic {
	readable := make(map[string]*graph.Resource, len(rs)+len(out.resources))
	for _, r := range rs {
		readable[r.Address] = r
	}
	for _, dr := range out.resources {
		r := dr.res
		r.DerivedBy, r.Range = p.Name, p.Range
		if dr.driverFrom != "" {
			from, ok := readable[dr.driverFrom]
			if !ok {
				return policyProblem(p, CodeBadOutput, "policy %s printed an output xosplan cannot use: %s takes its driver from %s, which is not a resource the policy reads", p.Name, r.Address, dr.driverFrom)
			}
			r.Driver = from.Driver
			if r.Type == "" {
				r.Type, r.TypeChain = from.Type, from.TypeChain
			}
		}
		if len(r.TypeChain) == 0 {
			r.TypeChain = []string{r.Type}
		}
	}
	for i, s := range out.sets {
		r := readable[s.address]
		switch {
		case r == nil || r.DerivedBy != "":
			return policyProblem(p, CodeBadOutput, "policy %s printed an output xosplan cannot use: set[%d]: %s is not a declared resource the policy reads (a policy sets values on the configuration's resources; it gives its own in their spec)", p.Name, i, s.address)
		case slices.ContainsFunc(r.Sensitive, func(sp string) bool { return pathsOverlap(sp, s.path) }):
			return policyProblem(p, CodeBadOutput, "policy %s printed an output xosplan cannot use: set[%d]: %s of %s is, or holds, a secret, which a policy neither reads nor sets", p.Name, i, s.path, s.address)
		}
	}
	for _, dr := range out.resources {
		readable[dr.res.Address] = dr.res
	}
	for i, e := range out.edges {
		if readable[e.Target] == nil {
			return policyProblem(p, CodeBadOutput, "policy %s printed an output xosplan cannot use: edges[%d]: target %s is neither a resource the policy reads nor one it derives", p.Name, i, e.Target)
		}
		out.edges[i].Range = p.Range
	}
	return nil
}

// confine returns the executable exe once it is known to be a regular
// file inside the configuration root (links followed), checked without
// blocking on a named pipe.
func (d *deriver) confine(ctx context.Context, exe string) (string, error) {
	if len(d.opts.Root) == 0 {
		return "", errors.New("no configuration root to confine it to")
	}
	root, err := userfile.NewRoot(d.opts.Root...)
	if err != nil {
		return "", err
	}
	resolved, err := root.Confine(exe)
	if err != nil {
		return "", err
	}
	f, _, err := userfile.Open(ctx, resolved, userfile.Options{})
	if err != nil {
		return "", err
	}
	f.Close()
	return resolved, nil
}

// cycleOwner names the first policy that derived a resource of cycle.
func cycleOwner(g *graph.Graph, cycle []graph.Edge) string {
	for _, e := range cycle {
		if r, ok := g.Resource(e.Source); ok && r.DerivedBy != "" {
			return r.DerivedBy
		}
	}
	return ""
}
