package executor

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// Keys of state.Feedback.Extra and Attributes the scripted driver writes.
const (
	// ExtraModel holds the whole instance model of the protocol, so that the
	// next action starts from it (activity log bounded, see maxLogEntries).
	ExtraModel = "model"
	// ExtraInstanceID holds the synthetic instance id ("instanceId" of the
	// protocol); Feedback.InstanceID holds the natural id the scripts key
	// instances by.
	ExtraInstanceID = "instance_id"
	// AttrName is the instance's display name.
	AttrName = "name"
	// AttrComponents maps each referenced component's path ("tomcat-vm",
	// "a.b") to {mapping, key, instance}; instance is set when the
	// reference resolved.
	AttrComponents = "components"
	// AttrInterfaceStatus maps an interface to the status it overrides.
	AttrInterfaceStatus = "interface_status"
	// SignalFactoryInstances is the factory signal mapping natural ids to
	// instance ids.
	SignalFactoryInstances = "factory.instances"
)

// Bounds on what the recorded model keeps.
const (
	maxLogEntries = 100
	maxCommands   = 50
)

// syntheticID returns the stable instance id xosplan gives the resource at
// addr: the same address always gets the same id, so that a repeated
// launch is recognised by idempotent scripts.
func syntheticID(addr string) string {
	sum := sha256.Sum256([]byte("xosplan instance\x00" + addr))
	return hex.EncodeToString(sum[:12])
}

// priorModel returns the instance model recorded for a resource, or a
// fresh one.
func priorModel(prior *state.Resource) instanceModel {
	m := instanceModel{}
	if prior == nil {
		return m
	}
	if rec, ok := prior.Feedback.Extra[ExtraModel].(map[string]graph.Value); ok {
		if c, err := graph.Canonicalize(rec); err == nil {
			// A deep copy: the model is updated in place.
			m = instanceModel(copyValue(c).(map[string]graph.Value))
		}
	}
	return m
}

func copyValue(v graph.Value) graph.Value {
	switch x := v.(type) {
	case map[string]graph.Value:
		out := make(map[string]graph.Value, len(x))
		for k, e := range x {
			out[k] = copyValue(e)
		}
		return out
	case []graph.Value:
		out := make([]graph.Value, len(x))
		for i, e := range x {
			out[i] = copyValue(e)
		}
		return out
	}
	return v
}

// flags returns a status's flags (absent flags are false).
func flags(v graph.Value) state.Status {
	var st state.Status
	m, _ := v.(map[string]graph.Value)
	f, _ := m["flags"].(map[string]graph.Value)
	st.Active, _ = f["active"].(bool)
	st.Converging, _ = f["converging"].(bool)
	st.Failed, _ = f["failed"].(bool)
	st.Message, _ = m["message"].(string)
	return st
}

// allFlagsFalse is the protocol's "destroyed".
func allFlagsFalse(st state.Status) bool { return !st.Active && !st.Converging && !st.Failed }

// feedback turns the model of the instance with natural id into feedback.
// Component references resolve through mappings ("interface.pin" →
// natural id → instance id).
func (m instanceModel) feedback(naturalID string, mappings map[string]map[string]string) state.Feedback {
	m.trim()
	fb := state.Feedback{
		InstanceID: naturalID,
		Status:     flags(m["status"]),
		Attributes: map[string]graph.Value{},
		Extra:      map[string]graph.Value{ExtraModel: copyValue(map[string]graph.Value(m))},
	}
	if id, ok := m["instanceId"].(string); ok {
		fb.Extra[ExtraInstanceID] = id
	}
	if name, ok := m["name"].(string); ok {
		fb.Attributes[AttrName] = name
	}
	ifs, _ := m["interfaces"].(map[string]graph.Value)
	ifStatus := map[string]graph.Value{}
	for _, name := range slices.Sorted(maps.Keys(ifs)) {
		iface, _ := ifs[name].(map[string]graph.Value)
		sigs, _ := iface["signals"].(map[string]graph.Value)
		for pin, v := range sigs {
			if fb.Signals == nil {
				fb.Signals = map[string]graph.Value{}
			}
			fb.Signals[name+"."+pin] = v
		}
		if iface["status"] != nil {
			st := flags(iface["status"])
			ifStatus[name] = map[string]graph.Value{"active": st.Active, "converging": st.Converging, "failed": st.Failed, "message": st.Message}
		}
	}
	if len(ifStatus) > 0 {
		fb.Attributes[AttrInterfaceStatus] = ifStatus
	}
	fb.Attributes = resolveReferences(fb.Attributes, m, mappings)
	if len(fb.Attributes) == 0 {
		fb.Attributes = nil
	}
	return fb
}

// trim bounds the recorded model: the latest activity log entries and
// command results only (command ids from xosplan sort by time).
func (m instanceModel) trim() {
	if log, ok := m["activityLog"].([]graph.Value); ok && len(log) > maxLogEntries {
		m["activityLog"] = append([]graph.Value(nil), log[len(log)-maxLogEntries:]...)
	}
	if cmds, ok := m["commands"].(map[string]graph.Value); ok && len(cmds) > maxCommands {
		keys := slices.Sorted(maps.Keys(cmds))
		for _, k := range keys[:len(keys)-maxCommands] {
			delete(cmds, k)
		}
	}
}

// resolveReferences returns attrs with the component references of model
// resolved again through mappings; attrs itself is not modified. Without
// references in model, attrs is returned as it is.
func resolveReferences(attrs map[string]graph.Value, model instanceModel, mappings map[string]map[string]string) map[string]graph.Value {
	refs := map[string]graph.Value{}
	collectReferences("", model["components"], mappings, refs)
	if len(refs) == 0 {
		return attrs
	}
	out := maps.Clone(attrs)
	if out == nil {
		out = map[string]graph.Value{}
	}
	out[AttrComponents] = refs
	return out
}

// collectReferences flattens a components tree into path → reference.
func collectReferences(prefix string, v graph.Value, mappings map[string]map[string]string, out map[string]graph.Value) {
	comps, _ := v.(map[string]graph.Value)
	for _, name := range slices.Sorted(maps.Keys(comps)) {
		c, _ := comps[name].(map[string]graph.Value)
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		if ref, ok := c["reference"].(map[string]graph.Value); ok {
			mapping, _ := ref["mapping"].(string)
			key := fmt.Sprint(ref["key"])
			r := map[string]graph.Value{"mapping": mapping, "key": key}
			if id, ok := mappings[mapping][key]; ok {
				r["instance"] = id
			}
			out[path] = r
		}
		collectReferences(path, c["components"], mappings, out)
	}
}

// factoryMappings returns the id mappings a factory offers for resolving
// references, keyed "interface.pin": every map of strings among the
// factory's resolved spec (its consume-signal pins, bound to other
// factories' factory.instances and resolved by the walk) and its signals
// (its own factory.instances); a signal wins over a spec entry.
func factoryMappings(factory *state.Resource) map[string]map[string]string {
	out := map[string]map[string]string{}
	if factory == nil {
		return out
	}
	add := func(src map[string]graph.Value) {
		for pin, v := range src {
			m, ok := v.(map[string]graph.Value)
			if !ok || !mappingName.MatchString(pin) {
				continue
			}
			ids := map[string]string{}
			for k, id := range m {
				if s, ok := id.(string); ok {
					ids[k] = s
				}
			}
			out[pin] = ids
		}
	}
	add(factory.Feedback.Resolved)
	add(factory.Feedback.Signals)
	return out
}

// FactoryInstances returns the factory.instances mapping of the factory
// at factoryAddress: natural id → synthetic instance id of every recorded
// scripted resource whose driver names that factory. The walk publishes it
// as the factory's SignalFactoryInstances signal, where references of
// other factories' components resolve.
func FactoryInstances(recorded []state.Resource, factoryAddress string) map[string]graph.Value {
	out := map[string]graph.Value{}
	for _, r := range recorded {
		if r.Driver.Name != graph.DriverScripted || r.Feedback.InstanceID == "" {
			continue
		}
		if a, _ := r.Driver.Options[OptionFactoryAddress].(string); a != factoryAddress {
			continue
		}
		id, _ := r.Feedback.Extra[ExtraInstanceID].(string)
		if id == "" {
			id = syntheticID(r.Address)
		}
		out[r.Feedback.InstanceID] = id
	}
	return out
}

// factoryOf returns the address of the factory a scripted component's
// driver names, or "".
func factoryOf(d graph.Driver) string {
	if d.Name != graph.DriverScripted {
		return ""
	}
	fa, _ := d.Options[OptionFactoryAddress].(string)
	return fa
}

// withInstances returns a copy of the factory record f whose Signals hold
// its SignalFactoryInstances mapping, computed from members (the records
// of its components): no script of the factory reports it.
func withInstances(f *state.Resource, members []state.Resource) *state.Resource {
	c := *f
	c.Feedback.Signals = maps.Clone(c.Feedback.Signals)
	if c.Feedback.Signals == nil {
		c.Feedback.Signals = map[string]graph.Value{}
	}
	c.Feedback.Signals[SignalFactoryInstances] = FactoryInstances(members, f.Address)
	return &c
}

// StateLookup returns a Lookup over the records of st, as the walk's own
// lookup reads them: a factory comes with its SignalFactoryInstances
// signal, computed from the recorded components that name it.
func StateLookup(st *state.State) Lookup {
	if st == nil {
		return func(string) (*state.Resource, bool) { return nil, false }
	}
	byAddr := make(map[string]*state.Resource, len(st.Resources))
	members := map[string][]state.Resource{}
	for i := range st.Resources {
		r := &st.Resources[i]
		byAddr[r.Address] = r
		if fa := factoryOf(r.Driver); fa != "" {
			members[fa] = append(members[fa], *r)
		}
	}
	return func(addr string) (*state.Resource, bool) {
		r, ok := byAddr[addr]
		if ok && len(members[addr]) > 0 {
			return withInstances(r, members[addr]), true
		}
		return r, ok
	}
}

// scriptFactory returns the factory at addr as its components' scripts
// see it now: with its factory.instances signal (lookup computes it), and
// its spec resolved again through lookup, so that a consume-signal pin
// bound to another factory's factory.instances maps the instances
// recorded now rather than those of the factory's last apply: a reference
// resolves as soon as its mapping has arrived. A spec that cannot be
// resolved keeps the resolution recorded. Nil when addr is not recorded.
func scriptFactory(addr string, lookup Lookup) *state.Resource {
	f, ok := lookup(addr)
	if !ok {
		return nil
	}
	c := *f
	if graph.HasUnknown(f.Spec) {
		if resolved, err := ResolveMap(f.Spec, lookup); err == nil {
			c.Feedback.Resolved = resolved
		}
	}
	return &c
}

// OptionFactory is the graph.Driver.Options key of a scripted component's
// factory name (pkg/manifest's OptionFactory; OptionFactoryAddress, its
// address, is declared with the walk).
const OptionFactory = "factory"

// configurationOf returns the "configuration.*" entries of a spec: the
// configuration document the protocol passes to scripts.
func configurationOf(spec map[string]graph.Value) map[string]any {
	out := map[string]any{}
	for k, v := range spec {
		if strings.HasPrefix(k, "configuration.") {
			out[k] = plain(v)
		}
	}
	return out
}

// plain converts a canonical value for yamlsrc.Marshal: an Unknown (which
// the walk should have resolved) is rendered as its expression text.
func plain(v graph.Value) any {
	switch x := v.(type) {
	case map[string]graph.Value:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plain(e)
		}
		return out
	case []graph.Value:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	case graph.Unknown:
		return x.String()
	}
	return v
}

// ErrScriptPath is wrapped by the error of a script path that leaves the
// script root.
var ErrScriptPath = errors.New("script path escapes the script root")

// resolveScript maps a container path (/vm/launch.py) to a file under
// root. A path that climbs above the root with "..", or reaches outside it
// through a symbolic link, is refused.
func resolveScript(root, containerPath string) (string, error) {
	if root == "" {
		return "", fmt.Errorf("no script root to find %s under (set --script-root)", containerPath)
	}
	if containerPath == "" || strings.ContainsRune(containerPath, 0) {
		return "", fmt.Errorf("invalid script path %q", containerPath)
	}
	depth := 0
	for _, seg := range strings.Split(filepath.ToSlash(containerPath), "/") {
		switch seg {
		case "", ".":
		case "..":
			depth--
			if depth < 0 {
				return "", fmt.Errorf("%s: %w", containerPath, ErrScriptPath)
			}
		default:
			depth++
		}
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	confine, err := userfile.NewRoot(absRoot)
	if err != nil {
		return "", fmt.Errorf("script root: %w", err)
	}
	p := filepath.Join(absRoot, filepath.FromSlash(strings.TrimLeft(containerPath, "/")))
	realP, err := confine.Resolve(p)
	switch {
	case errors.Is(err, userfile.ErrOutsideRoot):
		return "", fmt.Errorf("%s: %w (through a symbolic link)", containerPath, ErrScriptPath)
	case err != nil:
		return "", fmt.Errorf("script %s: %w", containerPath, err)
	}
	if fi, err := os.Stat(realP); err != nil || fi.IsDir() {
		return "", fmt.Errorf("script %s is not a file under %s", containerPath, root)
	}
	return p, nil
}
