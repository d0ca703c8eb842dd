package planner

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestOperationChangesHaveReasonAndPaths: what an operation is given and
// what it runs are compared like the spec, each change named by its
// operation path, and classified as operation_changed or
// implementation_changed; a digest missing on either side (a state
// written before digests were kept, a file that could not be read) is not
// a change, so that upgrading plans no mass update.
func TestOperationChangesHaveReasonAndPaths(t *testing.T) {
	op := func(impl, digest string, inputs map[string]graph.Value) graph.Operation {
		return graph.Operation{Implementation: impl, Digest: digest, Inputs: inputs}
	}
	base := map[string]graph.Operation{
		"Standard.create":    op("create.sh", "sha256:1", nil),
		"Standard.configure": op("configure.sh", "sha256:2", map[string]graph.Value{"greeting": "hello", "port": int64(80)}),
	}
	with := func(key string, o graph.Operation) map[string]graph.Operation {
		m := map[string]graph.Operation{}
		for k, v := range base {
			m[k] = v
		}
		if o.Implementation == "" {
			delete(m, key)
		} else {
			m[key] = o
		}
		return m
	}
	tests := []struct {
		name          string
		before, after map[string]graph.Operation
		paths         []string
		reason        Reason
		reasonPaths   []string
	}{
		{"same", base, base, nil, ReasonNone, nil},
		{"an input value", base, with("Standard.configure", op("configure.sh", "sha256:2", map[string]graph.Value{"greeting": "bye", "port": 80.0})),
			[]string{"Standard.configure.inputs.greeting"}, ReasonOperationChanged, []string{"Standard.configure.inputs.greeting"}},
		{"an input added", base, with("Standard.create", op("create.sh", "sha256:1", map[string]graph.Value{"token": graph.Unknown{Func: "attribute", Args: []graph.Value{"base", "token"}}})),
			[]string{"Standard.create.inputs"}, ReasonOperationChanged, []string{"Standard.create.inputs"}},
		{"another script path", base, with("Standard.create", op("create-v2.sh", "sha256:1", nil)),
			[]string{"Standard.create.implementation"}, ReasonImplementationChanged, []string{"Standard.create"}},
		{"the script's content", base, with("Standard.create", op("create.sh", "sha256:9", nil)),
			[]string{"Standard.create.digest"}, ReasonImplementationChanged, []string{"Standard.create"}},
		{"content and input", base, map[string]graph.Operation{
			"Standard.create":    op("create.sh", "sha256:9", nil),
			"Standard.configure": op("configure.sh", "sha256:2", map[string]graph.Value{"greeting": "bye", "port": int64(80)}),
		}, []string{"Standard.configure.inputs.greeting", "Standard.create.digest"}, ReasonOperationChanged, []string{"Standard.configure.inputs.greeting"}},
		{"an operation added", with("Standard.configure", graph.Operation{}), base,
			[]string{"Standard.configure"}, ReasonOperationChanged, []string{"Standard.configure"}},
		{"a record without digests", with("Standard.create", op("create.sh", "", nil)), base, nil, ReasonNone, nil},
		{"a file that could not be digested", base, with("Standard.create", op("create.sh", "", nil)), nil, ReasonNone, nil},
		{"an output mapping", base, with("Standard.create", graph.Operation{Implementation: "create.sh", Digest: "sha256:1", Outputs: map[string]string{"id": "server_id"}}),
			[]string{"Standard.create.outputs"}, ReasonOperationChanged, []string{"Standard.create.outputs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			paths := OperationPaths(tt.before, tt.after)
			if !slices.Equal(paths, tt.paths) {
				t.Fatalf("paths %q, want %q", paths, tt.paths)
			}
			reason, rp := OperationReason(paths, tt.before, tt.after)
			if reason != tt.reason || !slices.Equal(rp, tt.reasonPaths) {
				t.Errorf("%s %q, want %s %q", reason, rp, tt.reason, tt.reasonPaths)
			}
		})
	}
}

// TestChangeOutsideLifecycleRecordsOnly: a change confined to a health
// check, a discovery or a command script does not change the object, so
// it is an update in place that runs nothing (RecordsOnly), with its
// operation reason and paths, for exec and scripted resources alike and
// whether or not the driver could update in place (it was a replacement
// without Standard.configure or a reconfiguration script). A change that
// touches a life-cycle operation or the spec too, and a failed object,
// keep their actions; a plan file keeps the mark.
func TestChangeOutsideLifecycleRecordsOnly(t *testing.T) {
	op := func(impl, digest string) graph.Operation {
		return graph.Operation{Implementation: impl, Digest: digest}
	}
	exec := map[string]graph.Operation{"Standard.create": op("create.sh", "sha256:1"), graph.OpHealthCheck: op("check.sh", "sha256:2")}
	scripted := map[string]graph.Operation{
		graph.OpLaunch: op("launch.sh", "sha256:1"), graph.OpDestroy: op("destroy.sh", "sha256:3"),
		graph.OpHealthCheck: op("check.sh", "sha256:2"), graph.OpCommandPrefix + "control.restart": op("restart.sh", "sha256:4"),
	}
	factory := map[string]graph.Operation{graph.OpDiscovery: op("discover.sh", "sha256:5")}
	// set returns ops with the given keys set (an empty operation removes
	// the key).
	set := func(ops map[string]graph.Operation, kv ...any) map[string]graph.Operation {
		out := maps.Clone(ops)
		for i := 0; i < len(kv); i += 2 {
			if o := kv[i+1].(graph.Operation); o.Implementation == "" {
				delete(out, kv[i].(string))
			} else {
				out[kv[i].(string)] = o
			}
		}
		return out
	}
	withConfigure := set(exec, "Standard.configure", op("configure.sh", "sha256:6"))
	withReconfigure := set(scripted, graph.OpReconfigure, op("reconfigure.sh", "sha256:7"))
	tests := []struct {
		name          string
		driver        string
		before, after map[string]graph.Operation
		specChanged   bool
		failed        bool
		action        Action
		reason        Reason
		reasonPaths   []string
		recordsOnly   bool
	}{
		{"exec check content, no configure", graph.DriverExec, exec, set(exec, graph.OpHealthCheck, op("check.sh", "sha256:9")),
			false, false, Update, ReasonImplementationChanged, []string{graph.OpHealthCheck}, true},
		{"exec check content, configure", graph.DriverExec, withConfigure, set(withConfigure, graph.OpHealthCheck, op("check.sh", "sha256:9")),
			false, false, Update, ReasonImplementationChanged, []string{graph.OpHealthCheck}, true},
		{"exec check path", graph.DriverExec, exec, set(exec, graph.OpHealthCheck, op("check-v2.sh", "sha256:2")),
			false, false, Update, ReasonImplementationChanged, []string{graph.OpHealthCheck}, true},
		{"exec check input", graph.DriverExec, exec, set(exec, graph.OpHealthCheck, graph.Operation{Implementation: "check.sh", Digest: "sha256:2", Inputs: map[string]graph.Value{"port": int64(80)}}),
			false, false, Update, ReasonOperationChanged, []string{"healthCheck.inputs"}, true},
		{"exec check added", graph.DriverExec, set(exec, graph.OpHealthCheck, graph.Operation{}), exec,
			false, false, Update, ReasonOperationChanged, []string{graph.OpHealthCheck}, true},
		{"exec check removed", graph.DriverExec, exec, set(exec, graph.OpHealthCheck, graph.Operation{}),
			false, false, Update, ReasonOperationChanged, []string{graph.OpHealthCheck}, true},
		{"scripted check, no reconfigure", graph.DriverScripted, scripted, set(scripted, graph.OpHealthCheck, op("check.sh", "sha256:9")),
			false, false, Update, ReasonImplementationChanged, []string{graph.OpHealthCheck}, true},
		{"scripted command, reconfigure", graph.DriverScripted, withReconfigure, set(withReconfigure, graph.OpCommandPrefix+"control.restart", op("restart.sh", "sha256:9")),
			false, false, Update, ReasonImplementationChanged, []string{"command.control.restart"}, true},
		{"scripted check and command", graph.DriverScripted, scripted,
			set(scripted, graph.OpHealthCheck, op("check.sh", "sha256:9"), graph.OpCommandPrefix+"control.stop", op("stop.sh", "sha256:8")),
			false, false, Update, ReasonOperationChanged, []string{"command.control.stop"}, true},
		{"factory discovery", graph.DriverScripted, factory, set(factory, graph.OpDiscovery, op("discover.sh", "sha256:9")),
			false, false, Update, ReasonImplementationChanged, []string{graph.OpDiscovery}, true},
		{"check and create, no configure", graph.DriverExec, exec,
			set(exec, graph.OpHealthCheck, op("check.sh", "sha256:9"), "Standard.create", op("create.sh", "sha256:9")),
			false, false, DeleteThenCreate, ReasonCannotUpdate, nil, false},
		{"check and configure", graph.DriverExec, withConfigure,
			set(withConfigure, graph.OpHealthCheck, op("check.sh", "sha256:9"), "Standard.configure", op("configure.sh", "sha256:9")),
			false, false, Update, ReasonImplementationChanged, []string{"Standard.configure", graph.OpHealthCheck}, false},
		{"check and spec, configure", graph.DriverExec, withConfigure, set(withConfigure, graph.OpHealthCheck, op("check.sh", "sha256:9")),
			true, false, Update, ReasonSpecChanged, []string{"size"}, false},
		{"check and spec, no configure", graph.DriverExec, exec, set(exec, graph.OpHealthCheck, op("check.sh", "sha256:9")),
			true, false, DeleteThenCreate, ReasonCannotUpdate, []string{"size"}, false},
		{"check of a failed object, configure", graph.DriverExec, withConfigure, set(withConfigure, graph.OpHealthCheck, op("check.sh", "sha256:9")),
			false, true, Create, ReasonLastApplyFailed, nil, false},
		{"check of a failed object, no configure", graph.DriverExec, exec, set(exec, graph.OpHealthCheck, op("check.sh", "sha256:9")),
			false, true, DeleteThenCreate, ReasonLastApplyFailed, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := map[string]graph.Value{"size": int64(1)}
			after := &graph.Resource{Address: "obj", Type: "t", Management: graph.Managed, Spec: spec,
				Driver: graph.Driver{Name: tt.driver, Operations: tt.after}}
			if tt.specChanged {
				after.Spec = map[string]graph.Value{"size": int64(2)}
			}
			fb := state.Feedback{BackendCode: state.BackendOK, Enacted: time.Unix(1, 0)}
			if tt.failed {
				fb.BackendCode, fb.LastAttempt = state.BackendError, time.Unix(2, 0)
			}
			checkDecision(t, after, state.Resource{Address: "obj", Type: "t", Management: graph.Managed,
				Spec: spec, Driver: graph.Driver{Name: tt.driver, Operations: tt.before}, Feedback: fb},
				tt.action, tt.reason, tt.reasonPaths, tt.recordsOnly)
		})
	}
}

// TestRecordsOnlyReadingAReplacedDependency: a resource whose health check
// changed and whose operation inputs read a replaced resource runs its
// update after all (dependency_replaced), its new check included.
func TestRecordsOnlyReadingAReplacedDependency(t *testing.T) {
	token := graph.Unknown{Func: "attribute", Args: []graph.Value{"base", "token"}}
	ops := func(check string) map[string]graph.Operation {
		return map[string]graph.Operation{
			"Standard.create":    {Implementation: "create.sh", Digest: "sha256:1"},
			"Standard.configure": {Implementation: "configure.sh", Digest: "sha256:2", Inputs: map[string]graph.Value{"token": token}},
			graph.OpHealthCheck:  {Implementation: "check.sh", Digest: check},
		}
	}
	g := graph.New()
	base := &graph.Resource{Address: "base", Type: "t", Management: graph.Managed, Spec: map[string]graph.Value{},
		Driver: graph.Driver{Name: graph.DriverExec, Operations: map[string]graph.Operation{"Standard.create": {Implementation: "base.sh"}}}}
	top := &graph.Resource{Address: "top", Type: "t", Management: graph.Managed, Spec: map[string]graph.Value{},
		Driver: graph.Driver{Name: graph.DriverExec, Operations: ops("sha256:9")}}
	for _, r := range []*graph.Resource{base, top} {
		if err := g.AddResource(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.AddEdge(graph.Edge{Source: "top", Target: "base", Kind: graph.Reads}); err != nil {
		t.Fatal(err)
	}
	fb := state.Feedback{BackendCode: state.BackendOK, Enacted: time.Unix(1, 0)}
	st := &state.State{Lineage: "l", Resources: []state.Resource{
		{Address: "base", Type: "t", Management: graph.Managed, Spec: map[string]graph.Value{}, Driver: base.Driver, Feedback: fb},
		{Address: "top", Type: "t", Management: graph.Managed, Spec: map[string]graph.Value{}, Dependencies: []string{"base"},
			Driver: graph.Driver{Name: graph.DriverExec, Operations: ops("sha256:2")}, Feedback: fb},
	}}
	p, diags := Diff(context.Background(), g, st, Options{Replace: []string{"base"}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	c, _ := p.Change("top")
	if c.Action != Update || c.Reason != ReasonDependencyReplaced || c.RecordsOnly() ||
		!slices.Equal(c.ReasonPaths, []string{"Standard.configure.inputs.token"}) || !slices.Equal(c.OperationPaths, []string{"healthCheck.digest"}) {
		t.Errorf("top: %s %s %q, operation paths %q, records only %v", c.Action, c.Reason, c.ReasonPaths, c.OperationPaths, c.RecordsOnly())
	}
}
