package scripted

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Diagnostic codes of malformed script replies.
const (
	CodeReplySyntax    = "protocol.syntax"
	CodeReplyStructure = "protocol.structure"
	CodeReplyUpdate    = "protocol.bad_update"
	CodeReplyModel     = "protocol.bad_model"
)

// The update operators of the protocol. A plain key ("status: …") is
// opReplace.
const (
	opReplace = "replace"
	opSet     = "$set"
	opUnset   = "$unset"
	opPushAll = "$pushAll"
)

// replyDoc is one YAML document printed by a script: the updates of each
// instance, in the order written.
type replyDoc struct {
	instances []instanceUpdates
}

// instanceUpdates are the update commands for one instance, keyed by its
// natural id (the key under "instances:").
type instanceUpdates struct {
	id      string
	updates []update
	rng     diag.Range
}

// update is one update command on one path of the instance model.
type update struct {
	op    string
	path  []string
	value graph.Value
	rng   diag.Range
}

// parseReplyDocs parses a script's stdout (or a chunk of it): any number
// of YAML documents, each "instances: {<id>: <updates>}". It never panics;
// every problem is a diagnostic, and the documents before the first bad
// one are returned.
func parseReplyDocs(file string, data []byte) ([]replyDoc, diag.Diagnostics) {
	nodes, diags := yamlsrc.ParseAll(file, data, yamlsrc.Limits{MaxFileBytes: maxReplyBytes, MaxDocuments: 1000})
	for i := range diags {
		if diags[i].Code == "" || strings.HasPrefix(diags[i].Code, "yaml.") {
			diags[i].Code = CodeReplySyntax
		}
	}
	var docs []replyDoc
	for _, n := range nodes {
		d, ds := parseReplyDoc(n)
		diags = diags.Extend(ds)
		if ds.HasErrors() {
			break
		}
		docs = append(docs, d)
	}
	return docs, diags
}

// maxReplyBytes bounds what a script may print on stdout.
const maxReplyBytes = 8 << 20

func parseReplyDoc(n *yamlsrc.Node) (replyDoc, diag.Diagnostics) {
	var diags diag.Diagnostics
	var doc replyDoc
	if n.Kind != yamlsrc.Mapping {
		return doc, diags.Errorf(n.Range, "", CodeReplyStructure, "a reply document must be a map with \"instances:\", found %s", n.Describe())
	}
	for _, p := range n.Pairs() {
		if p.Key.Value != "instances" {
			diags = diags.Errorf(p.Key.Range, "", CodeReplyStructure, "unexpected key %q in a reply document (only \"instances\" is defined)", driver.Truncate(p.Key.Value, 80))
		}
	}
	inst := n.Get("instances")
	switch {
	case inst == nil:
		return doc, diags.Errorf(n.Range, "", CodeReplyStructure, "a reply document must have \"instances:\"")
	case inst.IsNull():
		return doc, diags
	case inst.Kind != yamlsrc.Mapping:
		return doc, diags.Errorf(inst.Range, "", CodeReplyStructure, "\"instances\" must be a map of instance ids to updates, found %s", inst.Describe())
	}
	for _, p := range inst.Pairs() {
		if p.Key.Kind != yamlsrc.Scalar || p.Key.Value == "" {
			diags = diags.Errorf(p.Key.Range, "", CodeReplyStructure, "an instance id must be a non-empty string")
			continue
		}
		iu := instanceUpdates{id: p.Key.Value, rng: p.Key.Range}
		ups, ds := parseUpdates(p.Value)
		diags = diags.Extend(ds)
		iu.updates = ups
		doc.instances = append(doc.instances, iu)
	}
	return doc, diags
}

// parseUpdates reads the update commands of one instance: a map, or null
// for none.
func parseUpdates(n *yamlsrc.Node) ([]update, diag.Diagnostics) {
	var diags diag.Diagnostics
	if n.IsNull() {
		return nil, nil
	}
	if n.Kind != yamlsrc.Mapping {
		return nil, diags.Errorf(n.Range, "", CodeReplyStructure, "the updates of an instance must be a map, found %s", n.Describe())
	}
	var out []update
	for _, p := range n.Pairs() {
		key := p.Key.Value
		switch key {
		case opSet, opUnset, opPushAll:
			if p.Value.IsNull() {
				continue
			}
			if p.Value.Kind != yamlsrc.Mapping {
				diags = diags.Errorf(p.Value.Range, "", CodeReplyUpdate, "%s takes a map of paths, found %s", key, p.Value.Describe())
				continue
			}
			for _, q := range p.Value.Pairs() {
				path, err := splitPath(q.Key.Value)
				if err != nil {
					diags = diags.Errorf(q.Key.Range, "", CodeReplyUpdate, "%s: %v", key, err)
					continue
				}
				u := update{op: key, path: path, rng: q.Key.Range}
				if key != opUnset {
					v, err := nodeValue(q.Value)
					if err != nil {
						diags = diags.Errorf(q.Value.Range, "", CodeReplyUpdate, "%s %s: %v", key, q.Key.Value, err)
						continue
					}
					u.value = v
				}
				if key == opPushAll && q.Value.Kind != yamlsrc.Sequence {
					diags = diags.Errorf(q.Value.Range, "", CodeReplyUpdate, "$pushAll %s takes a list of values, found %s", q.Key.Value, q.Value.Describe())
					continue
				}
				out = append(out, u)
			}
		default:
			if strings.HasPrefix(key, "$") {
				diags = diags.Errorf(p.Key.Range, "", CodeReplyUpdate, "unknown update operator %q (use $set, $unset or $pushAll)", driver.Truncate(key, 40))
				continue
			}
			path, err := splitPath(key)
			if err != nil {
				diags = diags.Errorf(p.Key.Range, "", CodeReplyUpdate, "%v", err)
				continue
			}
			v, err := nodeValue(p.Value)
			if err != nil {
				diags = diags.Errorf(p.Value.Range, "", CodeReplyUpdate, "%s: %v", key, err)
				continue
			}
			out = append(out, update{op: opReplace, path: path, value: v, rng: p.Key.Range})
		}
	}
	return out, diags
}

// nodeValue converts a reply node to a canonical value.
func nodeValue(n *yamlsrc.Node) (graph.Value, error) {
	v, err := graph.Canonicalize(n.Interface())
	if err != nil {
		return nil, fmt.Errorf("value has no canonical form: %w", err)
	}
	return v, nil
}

// splitPath splits a dotted model path. "commands.<id>" keeps the command
// id whole: ids are opaque strings that may hold dots.
func splitPath(p string) ([]string, error) {
	if p == "" {
		return nil, fmt.Errorf("empty path")
	}
	if id, ok := strings.CutPrefix(p, "commands."); ok && id != "" {
		return []string{"commands", id}, nil
	}
	parts := strings.Split(p, ".")
	for _, s := range parts {
		if s == "" {
			return nil, fmt.Errorf("path %q has an empty segment", driver.Truncate(p, 80))
		}
	}
	return parts, nil
}

// severities are the severities of activity log entries.
var severities = map[string]bool{"TRACE": true, "DEBUG": true, "INFO": true, "WARNING": true, "ERROR": true}

// normalizeSeverity returns the severity as the protocol reads it: any
// case; INFO when absent or not one of the five.
func normalizeSeverity(v graph.Value) string {
	s, _ := v.(string)
	s = strings.ToUpper(strings.TrimSpace(s))
	if severities[s] {
		return s
	}
	return "INFO"
}

// instanceModel is the state of one scripted instance: instanceId, name,
// status, interfaces, components, activityLog, commands.
type instanceModel map[string]graph.Value

// apply runs one update command on the model. It returns the activity log
// entries and command results the update appended, for streaming.
func (m instanceModel) apply(u update) (pushed []graph.Value, err error) {
	switch u.op {
	case opReplace, opSet:
		return m.set(u)
	case opUnset:
		return nil, m.unset(u)
	case opPushAll:
		return m.pushAll(u)
	}
	return nil, fmt.Errorf("unknown update operator %q", u.op)
}

// set runs a $replace or $set: a status flag must be a boolean, and the
// whole activity log is checked as it is pushed.
func (m instanceModel) set(u update) ([]graph.Value, error) {
	if isFlagPath(u.path) {
		if _, ok := u.value.(bool); !ok {
			return nil, fmt.Errorf("%s must be a boolean, found %s", strings.Join(u.path, "."), describe(u.value))
		}
	}
	if len(u.path) == 1 && u.path[0] == "activityLog" {
		list, ok := u.value.([]graph.Value)
		if !ok && u.value != nil {
			return nil, fmt.Errorf("activityLog must be a list, found %s", describe(u.value))
		}
		entries, err := logEntries(list)
		if err != nil {
			return nil, err
		}
		m["activityLog"] = entries
		return entries, nil
	}
	return nil, setPath(map[string]graph.Value(m), u.path, u.value)
}

// unset runs an $unset, which neither a status flag nor instanceId takes.
func (m instanceModel) unset(u update) error {
	if isFlagPath(u.path) {
		return fmt.Errorf("cannot $unset the status flag %s (flags are booleans; set it to false)", strings.Join(u.path, "."))
	}
	if len(u.path) == 1 && u.path[0] == "instanceId" {
		return fmt.Errorf("cannot $unset instanceId")
	}
	unsetPath(map[string]graph.Value(m), u.path)
	return nil
}

// pushAll runs a $pushAll to the activity log or to a command's results.
func (m instanceModel) pushAll(u update) ([]graph.Value, error) {
	list, _ := u.value.([]graph.Value)
	switch {
	case len(u.path) == 1 && u.path[0] == "activityLog":
		entries, err := logEntries(list)
		if err != nil {
			return nil, err
		}
		old, _ := m["activityLog"].([]graph.Value)
		m["activityLog"] = append(old, entries...)
		return entries, nil
	case len(u.path) == 2 && u.path[0] == "commands":
		for i, r := range list {
			if _, ok := r.(map[string]graph.Value); !ok {
				return nil, fmt.Errorf("commands.%s item %d: a command result must be a map, found %s", u.path[1], i+1, describe(r))
			}
		}
		cmds, ok := m["commands"].(map[string]graph.Value)
		if !ok {
			cmds = map[string]graph.Value{}
			m["commands"] = cmds
		}
		old, _ := cmds[u.path[1]].([]graph.Value)
		cmds[u.path[1]] = append(old, list...)
		return list, nil
	}
	return nil, fmt.Errorf("$pushAll is supported for activityLog and commands.<command id> only, not %s", strings.Join(u.path, "."))
}

// appendedBy returns the entries u appends to the activity log or to a
// command's results, as applying it returns them, without applying it:
// nil when it appends none or would fail.
func appendedBy(u update) []graph.Value {
	list, _ := u.value.([]graph.Value)
	switch {
	case len(u.path) == 1 && u.path[0] == "activityLog" && (u.op == opPushAll || u.op == opReplace || u.op == opSet):
		entries, err := logEntries(list)
		if err != nil {
			return nil
		}
		return entries
	case u.op == opPushAll && len(u.path) == 2 && u.path[0] == "commands":
		for _, r := range list {
			if _, ok := r.(map[string]graph.Value); !ok {
				return nil
			}
		}
		return list
	}
	return nil
}

// logEntries checks activity log entries and normalises their severity.
func logEntries(list []graph.Value) ([]graph.Value, error) {
	out := make([]graph.Value, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]graph.Value)
		if !ok {
			return nil, fmt.Errorf("activityLog entry %d must be a map with a message, found %s", i+1, describe(e))
		}
		msg, ok := m["message"].(string)
		if !ok {
			return nil, fmt.Errorf("activityLog entry %d: \"message\" is required and must be a string", i+1)
		}
		out = append(out, map[string]graph.Value{"severity": normalizeSeverity(m["severity"]), "message": msg})
	}
	return out, nil
}

// isFlagPath reports whether path names a status flag of the instance or
// of one of its interfaces.
func isFlagPath(path []string) bool {
	n := len(path)
	if n < 3 || path[n-3] != "status" || path[n-2] != "flags" {
		return false
	}
	return n == 3 || (n == 5 && path[0] == "interfaces")
}

func setPath(m map[string]graph.Value, path []string, v graph.Value) error {
	for i, seg := range path[:len(path)-1] {
		next, ok := m[seg]
		switch x := next.(type) {
		case map[string]graph.Value:
			m = x
		case nil:
			if ok && next != nil {
				return fmt.Errorf("%s is not a map", strings.Join(path[:i+1], "."))
			}
			nm := map[string]graph.Value{}
			m[seg] = nm
			m = nm
		default:
			return fmt.Errorf("cannot set %s: %s is %s, not a map", strings.Join(path, "."), strings.Join(path[:i+1], "."), describe(next))
		}
	}
	m[path[len(path)-1]] = v
	return nil
}

func unsetPath(m map[string]graph.Value, path []string) {
	for _, seg := range path[:len(path)-1] {
		next, ok := m[seg].(map[string]graph.Value)
		if !ok {
			return
		}
		m = next
	}
	delete(m, path[len(path)-1])
}

// check reports the problems of the model's shape: what the protocol
// defines must have its type. Keys the protocol does not define are kept
// as they are.
func (m instanceModel) check() []string {
	var probs shapeProblems
	probs.str("instanceId", m["instanceId"])
	probs.str("name", m["name"])
	probs.status("status", m["status"])
	if v := m["interfaces"]; v != nil {
		probs.interfaces(v)
	}
	if v := m["components"]; v != nil {
		probs = append(probs, checkComponents("components", v)...)
	}
	if v := m["activityLog"]; v != nil {
		if _, ok := v.([]graph.Value); !ok {
			probs.add("activityLog must be a list, found %s", describe(v))
		}
	}
	if v := m["commands"]; v != nil {
		if _, ok := v.(map[string]graph.Value); !ok {
			probs.add("commands must be a map of command ids to results, found %s", describe(v))
		}
	}
	return probs
}

// shapeProblems are the problems instanceModel.check finds, in the order
// found.
type shapeProblems []string

func (probs *shapeProblems) add(format string, args ...any) {
	*probs = append(*probs, fmt.Sprintf(format, args...))
}

// str checks that v, if given, is a string.
func (probs *shapeProblems) str(path string, v graph.Value) {
	if _, ok := v.(string); !ok && v != nil {
		probs.add("%s must be a string, found %s", path, describe(v))
	}
}

// status checks a status, if given: a map with a message and flags.
func (probs *shapeProblems) status(path string, v graph.Value) {
	if v == nil {
		return
	}
	st, ok := v.(map[string]graph.Value)
	if !ok {
		probs.add("%s must be a map with flags and message, found %s", path, describe(v))
		return
	}
	probs.str(path+".message", st["message"])
	if st["flags"] == nil {
		return
	}
	flags, ok := st["flags"].(map[string]graph.Value)
	if !ok {
		probs.add("%s.flags must be a map, found %s", path, describe(st["flags"]))
		return
	}
	for _, k := range slices.Sorted(maps.Keys(flags)) {
		switch k {
		case "active", "converging", "failed":
			if _, ok := flags[k].(bool); !ok {
				probs.add("%s.flags.%s must be a boolean, found %s", path, k, describe(flags[k]))
			}
		default:
			probs.add("%s.flags.%s is not a status flag (active, converging, failed)", path, driver.Truncate(k, 40))
		}
	}
}

// interfaces checks the interfaces v: a map of maps with signals and a
// status.
func (probs *shapeProblems) interfaces(v graph.Value) {
	ifs, ok := v.(map[string]graph.Value)
	if !ok {
		probs.add("interfaces must be a map, found %s", describe(v))
	}
	for _, name := range slices.Sorted(maps.Keys(ifs)) {
		iface, ok := ifs[name].(map[string]graph.Value)
		if !ok {
			if ifs[name] != nil {
				probs.add("interfaces.%s must be a map with signals and status, found %s", name, describe(ifs[name]))
			}
			continue
		}
		if s := iface["signals"]; s != nil {
			if _, ok := s.(map[string]graph.Value); !ok {
				probs.add("interfaces.%s.signals must be a map of pins to values, found %s", name, describe(s))
			}
		}
		probs.status("interfaces."+name+".status", iface["status"])
	}
}

// mappingName is "interface.pin".
var mappingName = regexp.MustCompile(`^[^.\s]+\.[^.\s]+$`)

func checkComponents(path string, v graph.Value) []string {
	comps, ok := v.(map[string]graph.Value)
	if !ok {
		return []string{fmt.Sprintf("%s must be a map of component names, found %s", path, describe(v))}
	}
	var probs []string
	for _, name := range slices.Sorted(maps.Keys(comps)) {
		p := path + "." + name
		c, ok := comps[name].(map[string]graph.Value)
		if !ok {
			probs = append(probs, fmt.Sprintf("%s must be a map with reference or components, found %s", p, describe(comps[name])))
			continue
		}
		if r := c["reference"]; r != nil {
			ref, ok := r.(map[string]graph.Value)
			if !ok {
				probs = append(probs, fmt.Sprintf("%s.reference must be a map with mapping and key, found %s", p, describe(r)))
			} else {
				mp, _ := ref["mapping"].(string)
				if !mappingName.MatchString(mp) {
					probs = append(probs, fmt.Sprintf("%s.reference.mapping must be \"<interface>.<pin>\"", p))
				}
				switch ref["key"].(type) {
				case string, int64, float64:
				default:
					probs = append(probs, fmt.Sprintf("%s.reference.key must be the id of the referenced instance", p))
				}
			}
		}
		if sub := c["components"]; sub != nil {
			probs = append(probs, checkComponents(p+".components", sub)...)
		}
	}
	return probs
}

// describe names a value's kind for a message.
func describe(v graph.Value) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []graph.Value:
		return "a list"
	case map[string]graph.Value:
		return "a map"
	}
	return fmt.Sprintf("%T", v)
}
