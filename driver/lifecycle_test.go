package driver

import (
	"slices"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TestLifecycleOperations checks the order a driver runs a node's
// operations in: the phases of the action, and in a phase the plain key,
// then each relationship's own by requirement name and index (numeric:
// db[2] before db[10]); an operation without an implementation, or of
// another phase whose name starts alike, is not run.
func TestLifecycleOperations(t *testing.T) {
	impl := graph.Operation{Implementation: "x.sh"}
	drv := graph.Driver{Operations: map[string]graph.Operation{
		"Standard.create":                    impl,
		"Standard.start":                     impl,
		"Standard.delete":                    impl,
		"Configure.add_target@db[10]":        impl,
		"Configure.add_target@db[2]":         impl,
		"Configure.add_target@a.b[x][0]":     impl,
		"Configure.add_target@cache[0]":      {Inputs: map[string]graph.Value{"x": "no implementation"}},
		"Configure.add_target_more@db[0]":    impl,
		"Configure.add_source":               impl,
		"Configure.remove_source@db[0]":      impl,
		"Configure.remove_source@db[01]":     impl, // no key RelationshipOperationKey makes
		"Configure.pre_configure_target@db[": impl,
	}}
	for action, want := range map[string][]string{
		ActionCreate: {"Standard.create", "Standard.start", "Configure.add_target@a.b[x][0]", "Configure.add_target@db[2]", "Configure.add_target@db[10]", "Configure.add_source"},
		ActionUpdate: nil,
		ActionDelete: {"Configure.remove_source@db[0]", "Standard.delete"},
		ActionHealth: nil,
	} {
		if got := LifecycleOperations(action, drv); !slices.Equal(got, want) {
			t.Errorf("%s runs %q, want %q", action, got, want)
		}
	}
}

func TestTargetSide(t *testing.T) {
	for key, want := range map[string]bool{
		"Configure.pre_configure_target":       true,
		"Configure.add_source@db[1]":           true,
		"Configure.target_changed":             true,
		"Configure.remove_source":              true,
		"Configure.post_configure_target@x[0]": true,
		"Configure.pre_configure_source":       false,
		"Configure.add_target@db[0]":           false,
		"Standard.create":                      false,
		"Configure.add_source@db[x]":           false,
	} {
		if got := TargetSide(key); got != want {
			t.Errorf("TargetSide(%q) = %v, want %v", key, got, want)
		}
	}
}
