package scripted

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// Keys of state.Feedback.Extra and Attributes the scripted driver writes
// (with driver.ExtraInstanceID).
const (
	// ExtraModel holds the whole instance model of the protocol, so that the
	// next action starts from it (activity log bounded, see maxLogEntries).
	ExtraModel = "model"
	// AttrName is the instance's display name.
	AttrName = "name"
	// AttrComponents maps each referenced component's path ("tomcat-vm",
	// "a.b") to {mapping, key, instance}; instance is set when the
	// reference resolved.
	AttrComponents = "components"
	// AttrInterfaceStatus maps an interface to the status it overrides.
	AttrInterfaceStatus = "interface_status"
)

// Bounds on what the recorded model keeps.
const (
	maxLogEntries = 100
	maxCommands   = 50
)

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
	m.withSignals(prior.Feedback.Signals)
	return m
}

// withSignals sets the model's signals to those recorded: a refresh
// records what a discovery or an observation reported of the signals
// without the model, which must not bring the older values back.
func (m instanceModel) withSignals(signals map[string]graph.Value) {
	for _, key := range slices.Sorted(maps.Keys(signals)) {
		iface, pin, ok := strings.Cut(key, ".")
		if !ok || iface == "" || pin == "" {
			continue
		}
		ifs, _ := m["interfaces"].(map[string]graph.Value)
		cur, _ := ifs[iface].(map[string]graph.Value)
		sigs, _ := cur["signals"].(map[string]graph.Value)
		if v, ok := sigs[pin]; ok && graph.Equal(v, signals[key]) {
			continue
		}
		_ = setPath(map[string]graph.Value(m), []string{"interfaces", iface, "signals", pin}, signals[key])
	}
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
		fb.Extra[driver.ExtraInstanceID] = id
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

// OptionFactory is the graph.Driver.Options key of a scripted component's
// factory name (pkg/manifest's OptionFactory; OptionFactoryAddress, its
// address, is driver.OptionFactoryAddress).
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

// recordedName returns the name recorded for a resource's instance: its
// name attribute, else its model's.
func recordedName(prior *state.Resource) string {
	if prior == nil {
		return ""
	}
	if name, ok := prior.Feedback.Attributes[AttrName].(string); ok && name != "" {
		return name
	}
	m, _ := prior.Feedback.Extra[ExtraModel].(map[string]graph.Value)
	name, _ := m["name"].(string)
	return name
}

// keepName reports whether u, an update of the instance's name, is to be
// ignored: the document gives an instance its name once ("you cannot
// update it later"), so once one is recorded another is not applied, nor
// seen as a change; output says so when it differs.
func (t *target) keepName(u update, output func(string)) bool {
	if t.name == "" || len(u.path) != 1 || u.path[0] != "name" {
		return false
	}
	if s, _ := u.value.(string); s != t.name || u.op == opUnset {
		output(fmt.Sprintf("%s: ignoring the name %s reported for an instance named %q (a name is set once)", t.req.Address, describeName(u), t.name))
	}
	t.model["name"] = t.name
	return true
}

func describeName(u update) string {
	if s, ok := u.value.(string); ok && u.op != opUnset {
		return strconv.Quote(driver.Truncate(s, 80))
	}
	return "change"
}

// logFailure appends a script's failure to the activity log of the
// instance model fb records (the Tonomi document: "failures in their
// execution will also be reported to the component activity log") as an
// ERROR entry, and shows it on req.Output as the log's entries are shown.
func logFailure(fb *state.Feedback, req driver.Request, err error) {
	msg := driver.Truncate(req.Redactor.String(err.Error()), 2000)
	m, _ := fb.Extra[ExtraModel].(map[string]graph.Value)
	if m == nil {
		m = map[string]graph.Value{}
	}
	m = maps.Clone(m)
	log, _ := m["activityLog"].([]graph.Value)
	m["activityLog"] = append(slices.Clip(log), map[string]graph.Value{"severity": "ERROR", "message": msg})
	instanceModel(m).trim()
	fb.Extra = maps.Clone(fb.Extra)
	if fb.Extra == nil {
		fb.Extra = map[string]graph.Value{}
	}
	fb.Extra[ExtraModel] = m
	if req.Output != nil {
		req.Output(fmt.Sprintf("[ERROR] %s: %s", req.Address, msg))
	}
}
