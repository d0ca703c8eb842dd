package planner

import (
	"maps"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/graph"
)

// Operations are declarative state too: what an actuator runs (its
// implementation's path and the digest of its content, its dependencies)
// and what it is given (inputs, output mappings). The planner compares the
// operations recorded with the resource against the configured ones as
// values of this form, so that a change has a path like a spec change:
//
//	"<operation>"                 an operation added or removed
//	"<operation>.implementation"  another script or artifact path
//	"<operation>.digest"          the content of what it runs
//	"<operation>.dependencies"    its further files
//	"<operation>.inputs.<name>…"  an input value (deeper for part of one)
//	"<operation>.outputs.<name>"  where an output goes
//
// Operation keys hold dots themselves ("Standard.configure"); the paths
// are only ever read with their operation key known. Timeouts are not
// compared: they bound a run, they are not an input of what it does.

// OperationValues returns the comparable form of operations: per key, a
// map of the fields above that are set. Views render it; nil for none.
func OperationValues(ops map[string]graph.Operation) map[string]graph.Value {
	if len(ops) == 0 {
		return nil
	}
	out := make(map[string]graph.Value, len(ops))
	for k, op := range ops {
		out[k] = operationValue(op)
	}
	return out
}

func operationValue(op graph.Operation) map[string]graph.Value {
	m := map[string]graph.Value{}
	if op.Implementation != "" {
		m["implementation"] = op.Implementation
	}
	if op.Digest != "" {
		m["digest"] = op.Digest
	}
	if len(op.Dependencies) > 0 {
		deps := make([]graph.Value, len(op.Dependencies))
		for i, d := range op.Dependencies {
			deps[i] = d
		}
		m["dependencies"] = deps
	}
	if len(op.Inputs) > 0 {
		m["inputs"] = op.Inputs
	}
	if len(op.Outputs) > 0 {
		outs := make(map[string]graph.Value, len(op.Outputs))
		for k, v := range op.Outputs {
			outs[k] = v
		}
		m["outputs"] = outs
	}
	return m
}

// OperationPaths returns the paths at which the configured operations
// (after) differ from the recorded ones (before), sorted. A digest is
// compared only when both sides have one: a record written before
// xosplan kept digests, or a file that could not be read, says nothing
// about the content.
func OperationPaths(before, after map[string]graph.Operation) []string {
	if operationsEqual(before, after) {
		return nil
	}
	b, a := OperationValues(before), OperationValues(after)
	for k, op := range after {
		if was, ok := before[k]; ok && (was.Digest == "" || op.Digest == "") {
			delete(a[k].(map[string]graph.Value), "digest")
			delete(b[k].(map[string]graph.Value), "digest")
		}
	}
	return ChangedPaths(b, a)
}

// operationsEqual is OperationPaths(before, after) == nil without
// building anything, the case of almost every resource in a plan.
func operationsEqual(before, after map[string]graph.Operation) bool {
	if len(before) != len(after) {
		return false
	}
	for k, a := range after {
		b, ok := before[k]
		if !ok || a.Implementation != b.Implementation || !slices.Equal(a.Dependencies, b.Dependencies) ||
			(a.Digest != b.Digest && a.Digest != "" && b.Digest != "") ||
			!maps.Equal(a.Outputs, b.Outputs) || !graph.Equal(inputsValue(a.Inputs), inputsValue(b.Inputs)) {
			return false
		}
	}
	return true
}

// inputsValue is inputs as a value, an empty map being the same as none.
func inputsValue(inputs map[string]graph.Value) graph.Value {
	if len(inputs) == 0 {
		return nil
	}
	return inputs
}

// implementationField reports whether an operation path is about what
// the operation runs (implementation_changed) rather than what it is
// given (operation_changed).
func implementationField(path string, ops ...map[string]graph.Operation) (string, bool) {
	for _, field := range []string{".implementation", ".digest", ".dependencies"} {
		if key, ok := strings.CutSuffix(path, field); ok && hasOperation(key, ops) {
			return key, true
		}
	}
	return "", false
}

func hasOperation(key string, ops []map[string]graph.Operation) bool {
	for _, m := range ops {
		if _, ok := m[key]; ok {
			return true
		}
	}
	return false
}

// outsideLifecycle reports whether the operation key names an operation
// that is no part of an object's life cycle: a health check looks at the
// object, a discovery script finds objects, a command script is run on
// demand (xosplan invoke), a lookup finds an object by its keys.
// Changing one changes how xosplan watches or
// drives the object, not the object, so no create, configure or
// reconfiguration runs for it (ResourceChange.RecordsOnly); the keys are
// those of scripted components and of TOSCA health checks alike.
func outsideLifecycle(key string) bool {
	return key == graph.OpHealthCheck || key == graph.OpDiscovery || key == graph.OpLookup || strings.HasPrefix(key, graph.OpCommandPrefix)
}

// onlyOutsideLifecycle reports whether there are operation paths and
// every one is a path of an operation outside the life cycle
// (outsideLifecycle), the operation keys taken from before and after.
func onlyOutsideLifecycle(paths []string, before, after map[string]graph.Operation) bool {
	for _, p := range paths {
		key, ok := operationKey(p, before, after)
		if !ok || !outsideLifecycle(key) {
			return false
		}
	}
	return len(paths) > 0
}

// operationKey returns the key among ops that path is the path of: the
// key itself or a field below it, the longest such key, since keys hold
// dots themselves.
func operationKey(path string, ops ...map[string]graph.Operation) (string, bool) {
	best, found := "", false
	for _, m := range ops {
		for k := range m {
			if (path == k || strings.HasPrefix(path, k+".")) && (!found || len(k) > len(best)) {
				best, found = k, true
			}
		}
	}
	return best, found
}

// OperationReason classifies changed operation paths (OperationPaths of
// before and after): ReasonImplementationChanged with the operation keys
// when only what operations run changed, else ReasonOperationChanged with
// the paths of what they are given (inputs, outputs, operations added or
// removed); ReasonNone for no paths. It is the reason of an update in
// place, and what the views name when the change of a resource whose
// driver cannot update it in place (ReasonCannotUpdate) is in its
// operations, so that a replacement says which path forced it too.
func OperationReason(paths []string, before, after map[string]graph.Operation) (Reason, []string) {
	if len(paths) == 0 {
		return ReasonNone, nil
	}
	var keys, given []string
	for _, p := range paths {
		if key, ok := implementationField(p, before, after); ok {
			keys = append(keys, key)
		} else {
			given = append(given, p)
		}
	}
	if len(given) > 0 {
		return ReasonOperationChanged, given
	}
	return ReasonImplementationChanged, slices.Compact(keys)
}

// OperationSensitivePaths returns, sorted, the operation paths of the
// inputs that the operations of every given set list as Sensitive.
func OperationSensitivePaths(sets ...map[string]graph.Operation) []string {
	var out []string
	for _, ops := range sets {
		for k, op := range ops {
			for _, name := range op.Sensitive {
				out = append(out, k+".inputs."+name)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// operationRefs returns the addresses the operations' inputs read,
// sorted and unique.
func operationRefs(ops map[string]graph.Operation) []string {
	var out []string
	for _, op := range ops {
		out = append(out, specRefs(op.Inputs)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// inputsReading returns the paths ("<operation>.inputs.<name>") of the
// operation inputs whose values read addr, sorted.
func inputsReading(ops map[string]graph.Operation, addr string) []string {
	var out []string
	for k, op := range ops {
		for _, name := range keysReading(op.Inputs, addr) {
			out = append(out, k+".inputs."+name)
		}
	}
	slices.Sort(out)
	return out
}
