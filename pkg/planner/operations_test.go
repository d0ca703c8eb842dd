package planner

import (
	"slices"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
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
