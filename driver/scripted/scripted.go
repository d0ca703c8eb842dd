package scripted

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/process"
	"github.com/xosplan/xosplan/pkg/state"
)

// Driver runs scripted components (graph.DriverScripted) with the
// script protocol of the Tonomi custom-components document.
//
// Actions and scripts: create runs the launch script, update the
// reconfiguration script (without one the resource must be replaced; an
// update of health-check, discovery or command scripts alone calls no
// driver: planner.ResourceChange.RecordsOnly),
// delete the destroy script, health and read the health-check script (a
// resource without one keeps its recorded feedback), discover the
// factory's discovery script. Invoke runs a command script. A factory
// (discovery script, no launch script) runs nothing on create, update,
// delete, health and read: it is recorded active.
//
// Every script gets one YAML document on stdin, "configuration:" being the
// factory's configuration.* entries (from Request.Factory) and, per
// instance, its configuration.* entries (from Request.Resolved):
//
//	launch:       configuration, launch: {<instance id>: {configuration}}
//	reconfigure:  configuration, instances: {<id>: {configuration}}
//	destroy, healthCheck: configuration, instances: {<id>: null}
//	discovery:    configuration
//	command:      configuration, instances: {<id>: {commands: {<command id>:
//	              {<interface>: {<pin>: {<argument>: <value>}}}}}}
//
// <instance id> is the synthetic id, stable per address (syntheticID);
// <id> the natural id the launch reply keyed the instance by, recorded as
// Feedback.InstanceID. The script prints any number of YAML documents
// "instances: {<id>: <updates>}", applied in order to the instance model
// as they arrive; launch replies correlate by "instanceId". Update
// commands are "field: value" (a dotted field is a path), "$set",
// "$unset" and "$pushAll" (activityLog and commands.<command id> only).
// Activity log entries and command results go to Request.Output as they
// arrive. A reply that is not YAML, not of this shape, or sets a value of
// the wrong type fails the action with the position in the reply; the
// script's exit status ≠ 0 fails it too; instances the script was not
// asked about are ignored with a note on Output.
//
// Outcomes: launch succeeds when the instance is active, and reports
// Converging when it is converging (or reports no flag and a health check
// exists); failed without active fails. Destroy is done when every status
// flag is false; until then the driver runs the health check (or, without
// one, the destroy script again) every PollInterval within the timeout.
// The model is recorded in Feedback.Extra[ExtraModel], the synthetic id in
// Extra[ExtraInstanceID], signals as "interface.pin", component
// references in Attributes[AttrComponents].
//
// Scripts are container paths resolved under the script root (see
// resolveScript) and run like exec's (sh, bash, python3 or "#!"), in the
// script root, with XOSPLAN_ADDRESS (addresses of a batch joined by
// ","), XOSPLAN_OPERATION (launch, destroy, …), XOSPLAN_SCRIPT_ROOT and,
// when set, XOSPLAN_STATE_DIR.
type Driver struct{ opts driver.Options }

// New returns the scripted driver.
func New(opts driver.Options) *Driver { return &Driver{opts: opts.WithDefaults()} }

// MaxConcurrent returns driver.Options.MaxConcurrent.
func (s *Driver) MaxConcurrent() int { return s.opts.MaxConcurrent }

// ConfirmsInstances makes the driver a driver.InstanceConfirmer: an
// instance is adopted only once its health check (or its factory's
// discovery) confirms it.
func (*Driver) ConfirmsInstances() {}

// Source records, for a resource this driver applied, its script root (Request.ScriptRoot), where a later destroy, health check or command finds its scripts.
func (*Driver) Source(req driver.Request) (key, dir string) {
	return driver.ExtraScriptRoot, req.ScriptRoot
}

// scriptFor returns the operation key that serves an action.
func scriptFor(action string) string {
	switch action {
	case driver.ActionCreate:
		return graph.OpLaunch
	case driver.ActionUpdate:
		return graph.OpReconfigure
	case driver.ActionDelete:
		return graph.OpDestroy
	case driver.ActionHealth, driver.ActionRead:
		return graph.OpHealthCheck
	case driver.ActionDiscover:
		return graph.OpDiscovery
	}
	return ""
}

// Apply runs the action's script for one resource.
func (s *Driver) Apply(ctx context.Context, req driver.Request) (driver.Outcome, error) {
	if req.Action == driver.ActionDiscover {
		return s.discover(ctx, req)
	}
	r := s.LaunchBatch(ctx, []driver.Request{req})
	return r[0].Outcome, r[0].Err
}

// BatchKey groups requests that one script run can serve: same action,
// same script, same factory. Discovery is never batched.
func (s *Driver) BatchKey(req driver.Request) string {
	key := scriptFor(req.Action)
	drv, err := driver.ResourceDriver(req)
	if err != nil || key == "" || key == graph.OpDiscovery || !drv.HasOperation(key) {
		return ""
	}
	factory, _ := drv.Options[driver.OptionFactoryAddress].(string)
	if factory == "" {
		factory, _ = drv.Options[OptionFactory].(string)
	}
	return req.Action + "\x00" + drv.Operations[key].Implementation + "\x00" + factory + "\x00" + s.root(req)
}

// target is one instance of a script run.
type target struct {
	idx       int
	req       driver.Request
	synthetic string
	natural   string
	model     instanceModel
	seen      bool
	err       error
	// For Invoke: the command ("interface.pin") and the id whose results
	// are collected.
	command   string
	commandID string
	results   []driver.CommandResult
	// pushed holds every command result the run reported, by command id.
	pushed map[string][]driver.CommandResult
	// name is the instance's recorded name: set once (by the first
	// script that reports one), it never changes (keepName).
	name string
}

// LaunchBatch runs the action of reqs with as few script runs as possible:
// one per group of equal BatchKey. Results are index-aligned with reqs.
func (s *Driver) LaunchBatch(ctx context.Context, reqs []driver.Request) []driver.BatchResult {
	results := make([]driver.BatchResult, len(reqs))
	groups := map[string][]*target{}
	var order []string
	for i, req := range reqs {
		t, done := s.prepare(i, req)
		if done != nil {
			results[i] = *done
			continue
		}
		k := s.BatchKey(req)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], t)
	}
	for _, k := range order {
		for idx, r := range s.runGroup(ctx, groups[k]) {
			results[idx] = r
		}
	}
	return results
}

// prepare builds the target of one request, or the result of a request
// that needs no script run (or cannot have one).
func (s *Driver) prepare(i int, req driver.Request) (*target, *driver.BatchResult) {
	drv, err := driver.ResourceDriver(req)
	if err != nil {
		return nil, failedResult(req, err)
	}
	key := scriptFor(req.Action)
	if key == "" || key == graph.OpDiscovery {
		return nil, failedResult(req, fmt.Errorf("the scripted driver cannot %s", req.Action))
	}
	t := &target{idx: i, req: req, model: priorModel(req.Prior), synthetic: driver.InstanceID(req.Address), name: recordedName(req.Prior)}
	if req.Prior != nil {
		t.natural = req.Prior.Feedback.InstanceID
		if id, ok := req.Prior.Feedback.Extra[driver.ExtraInstanceID].(string); ok && id != "" {
			t.synthetic = id
		}
	}
	if !drv.HasOperation(graph.OpLaunch) && drv.HasOperation(graph.OpDiscovery) {
		// A factory: it runs no life-cycle script of its own (its
		// discovery runs on ActionDiscover); it is recorded as it is.
		return nil, factoryResult(req)
	}
	if !drv.HasOperation(key) {
		return nil, noScriptResult(req, key, t.model)
	}
	if req.Action != driver.ActionCreate && t.natural == "" {
		if req.Action == driver.ActionDelete {
			// Launch never reported an instance: there is nothing to destroy.
			return nil, &driver.BatchResult{Outcome: driver.Outcome{Gone: true, Feedback: state.Feedback{BackendCode: state.BackendOK, BackendStatus: "deleted (no instance was recorded)"}}}
		}
		return nil, failedResult(req, errors.New("no instance id recorded (the instance was never launched)"))
	}
	return t, nil
}

// failedResult is the result of req failed with err, over its recorded
// feedback.
func failedResult(req driver.Request, err error) *driver.BatchResult {
	var fb *state.Feedback
	if req.Prior != nil {
		f := req.Prior.Feedback
		fb = &f
	}
	o, err := driver.Failed(req, fb, err)
	return &driver.BatchResult{Outcome: o, Err: err}
}

// factoryResult is the result of req for a factory, which runs no script.
func factoryResult(req driver.Request) *driver.BatchResult {
	fb := state.Feedback{Status: state.Status{Active: true}, BackendCode: state.BackendOK, BackendStatus: "ok (factory)"}
	if req.Prior != nil {
		fb.Signals, fb.Attributes = req.Prior.Feedback.Signals, req.Prior.Feedback.Attributes
	}
	if req.Action == driver.ActionDelete {
		return &driver.BatchResult{Outcome: driver.Outcome{Gone: true, Feedback: state.Feedback{BackendCode: state.BackendOK, BackendStatus: "deleted (factory)"}}}
	}
	return &driver.BatchResult{Outcome: driver.Outcome{Feedback: fb}}
}

// noScriptResult is the result of req when the resource has no script
// key: a check or read keeps the recorded state, anything else fails.
func noScriptResult(req driver.Request, key string, model instanceModel) *driver.BatchResult {
	switch req.Action {
	case driver.ActionHealth, driver.ActionRead:
		// Nothing to ask: the recorded state stands, but for the
		// component references, which resolve through the
		// factory's mappings as they are now.
		var fb state.Feedback
		if req.Prior != nil {
			fb = req.Prior.Feedback
			fb.Attributes = resolveReferences(fb.Attributes, model, factoryMappings(req.Factory))
		}
		fb.BackendCode, fb.BackendStatus = state.BackendOK, "ok (no health check script)"
		return &driver.BatchResult{Outcome: driver.Outcome{Feedback: fb}}
	case driver.ActionUpdate:
		return failedResult(req, errors.New("no reconfigurationScript: the resource cannot be updated in place and must be replaced"))
	}
	return failedResult(req, fmt.Errorf("no %s script", key))
}

func (s *Driver) root(req driver.Request) string {
	if req.ScriptRoot != "" {
		return req.ScriptRoot
	}
	return s.opts.ScriptRoot
}

// runGroup runs one script for targets that share a BatchKey and returns
// their results by request index.
func (s *Driver) runGroup(ctx context.Context, targets []*target) map[int]driver.BatchResult {
	first := targets[0].req
	action := first.Action
	key := scriptFor(action)
	doc := s.input(targets, action)
	run, err := s.runScript(ctx, first, key, doc, targets, action == driver.ActionCreate)
	out := map[int]driver.BatchResult{}
	if err == nil && action == driver.ActionDelete {
		err = s.awaitDestroyed(ctx, targets, &run)
	}
	mappings := factoryMappings(first.Factory)
	now := time.Now()
	for _, t := range targets {
		fb := t.feedback(mappings, now)
		fb.Output = run.tail
		var o driver.Outcome
		var terr error
		switch {
		case err != nil:
			terr = err
		case t.err != nil:
			terr = t.err
		case !t.seen:
			terr = s.missingError(t, action, run.strays)
		default:
			o, terr = judge(action, fb, hasHealth(first))
		}
		if terr != nil {
			terr = fmt.Errorf("%s script %s: %w", key, opPath(t.req, key), terr)
			logFailure(&fb, t.req, terr)
			o, terr = driver.Failed(t.req, &fb, terr)
		} else {
			o.Feedback = fb
			o.Feedback.BackendCode = state.BackendOK
			o.Feedback.BackendStatus = statusText(action, fb.Status)
		}
		if o.Gone {
			o.Feedback.Attributes, o.Feedback.Signals = nil, nil
		}
		out[t.idx] = driver.BatchResult{Outcome: o, Err: terr}
	}
	return out
}

// hasHealth reports whether the request's resource has a health check.
func hasHealth(req driver.Request) bool {
	d, err := driver.ResourceDriver(req)
	return err == nil && d.HasOperation(graph.OpHealthCheck)
}

// judge turns the instance status after an action into an outcome.
func judge(action string, fb state.Feedback, hasHealth bool) (driver.Outcome, error) {
	st := fb.Status
	switch action {
	case driver.ActionDelete:
		return driver.Outcome{Gone: true}, nil
	case driver.ActionCreate, driver.ActionUpdate:
		switch {
		case st.Active:
			return driver.Outcome{}, nil
		case st.Failed:
			return driver.Outcome{}, fmt.Errorf("the instance failed%s", messageSuffix(st))
		case st.Converging, hasHealth:
			return driver.Outcome{Converging: true}, nil
		}
		return driver.Outcome{}, errors.New("the instance is neither active nor converging and there is no health check to wait for it")
	default: // health, read
		switch {
		case st.Active:
			return driver.Outcome{}, nil
		case st.Failed:
			return driver.Outcome{}, fmt.Errorf("the instance failed%s", messageSuffix(st))
		case st.Converging:
			return driver.Outcome{Converging: true}, nil
		}
		return driver.Outcome{}, fmt.Errorf("the instance reports no status flag (not active; destroyed outside xosplan?)%s", messageSuffix(st))
	}
}

func messageSuffix(st state.Status) string {
	if st.Message == "" {
		return ""
	}
	return ": " + st.Message
}

func statusText(action string, st state.Status) string {
	switch {
	case action == driver.ActionDelete:
		return "deleted"
	case st.Active && st.Failed:
		return "active, with a failure" + messageSuffix(st)
	case st.Active:
		return "active"
	case st.Converging:
		return "converging" + messageSuffix(st)
	}
	return "ok"
}

func (s *Driver) missingError(t *target, action string, strays []string) error {
	if action == driver.ActionCreate {
		msg := fmt.Sprintf("the reply has no instance with instanceId %q", t.synthetic)
		if len(strays) > 0 {
			msg += fmt.Sprintf(" (it reported %s, which the launch request did not ask for or had no instanceId)", driver.Truncate(strings.Join(strays, ", "), 400))
		}
		return errors.New(msg)
	}
	return fmt.Errorf("the reply has no updates for instance %q", t.natural)
}

// startedFor returns the Started hook of a run serving targets (req alone
// when there are none): one script run is the process of every instance
// it serves.
func startedFor(req driver.Request, targets []*target) func(state.Process) {
	if len(targets) == 0 {
		return req.Started
	}
	return func(p state.Process) {
		for _, t := range targets {
			if t.req.Started != nil {
				t.req.Started(p)
			}
		}
	}
}

func opPath(req driver.Request, key string) string {
	d, _ := driver.ResourceDriver(req)
	return d.Operations[key].Implementation
}

// input builds the stdin document of a run.
func (s *Driver) input(targets []*target, action string) map[string]any {
	doc := map[string]any{"configuration": factoryConfiguration(targets[0].req.Factory)}
	insts := map[string]any{}
	for _, t := range targets {
		switch action {
		case driver.ActionCreate:
			insts[t.synthetic] = map[string]any{"configuration": configurationOf(t.req.Resolved)}
		case driver.ActionUpdate:
			insts[t.natural] = map[string]any{"configuration": configurationOf(t.req.Resolved)}
		default:
			insts[t.natural] = nil
		}
	}
	if action == driver.ActionCreate {
		doc["launch"] = insts
	} else {
		doc["instances"] = insts
	}
	return doc
}

// factoryConfiguration is the configuration document of a factory.
func factoryConfiguration(f *state.Resource) map[string]any {
	if f == nil {
		return map[string]any{}
	}
	if len(f.Feedback.Resolved) > 0 {
		return configurationOf(f.Feedback.Resolved)
	}
	return configurationOf(f.Spec)
}

// maxStrayNotes bounds the unexpected instances a run reports.
const maxStrayNotes = 10

// scriptRun is what one script run left.
type scriptRun struct {
	tail   string
	strays []string
}

// runScript runs the script of key for targets with doc on stdin, applying
// the reply to the targets' models as documents arrive. launch correlates
// reply instances by instanceId; otherwise by natural id.
func (s *Driver) runScript(ctx context.Context, req driver.Request, key string, doc map[string]any, targets []*target, launch bool) (scriptRun, error) {
	return s.runScriptWith(ctx, req, key, doc, targets, launch, nil)
}

// runScriptWith is runScript where, when discover is non-nil, every
// reported instance not among targets is new and added through it.
func (s *Driver) runScriptWith(ctx context.Context, req driver.Request, key string, doc map[string]any, targets []*target, launch bool, discover func(id string) *target) (scriptRun, error) {
	drv, err := driver.ResourceDriver(req)
	if err != nil {
		return scriptRun{}, err
	}
	op := drv.Operations[key]
	p, err := s.scriptProcess(ctx, req, key, op, doc, targets)
	if err != nil {
		return scriptRun{}, err
	}
	rs := &replyStream{file: "stdout of " + op.Implementation, output: req.Output}
	if rs.output == nil {
		rs.output = func(string) {}
	}
	m := newReplyMatch(key, targets, launch, discover, rs.show)
	rs.onDoc = m.apply
	if discover == nil {
		rs.preview = m.preview
	}
	p.OnStdoutLine = rs.line
	stopWatch := rs.watch()
	res, runErr := p.Run(ctx)
	stopWatch()
	if runErr == nil {
		rs.finish()
	}
	run := scriptRun{tail: res.Tail, strays: m.strays}
	if runErr != nil {
		return run, runErr
	}
	if rs.diags.HasErrors() {
		return run, fmt.Errorf("malformed reply: %w", rs.diags.Err())
	}
	return run, nil
}

// scriptProcess prepares the run of op's script for targets (req alone
// when there are none) with doc on stdin: its interpreter, its
// environment, its limits. The caller sets how stdout is read.
func (s *Driver) scriptProcess(ctx context.Context, req driver.Request, key string, op graph.Operation, doc map[string]any, targets []*target) (process.Process, error) {
	path, err := driver.ResolveScript(s.root(req), op.Implementation)
	if err != nil {
		// A script that is missing or outside the root stays so until
		// the configuration or the scripts change.
		return process.Process{}, driver.NeedsChange(err)
	}
	argv, err := process.Interpreter(ctx, path)
	if err != nil {
		return process.Process{}, err
	}
	stdin, err := yamlsrc.Marshal(doc)
	if err != nil {
		return process.Process{}, err
	}
	addrs := make([]string, len(targets))
	for i, t := range targets {
		addrs[i] = t.req.Address
	}
	if len(targets) == 0 {
		addrs = []string{req.Address}
	}
	root, err := filepath.Abs(s.root(req))
	if err != nil {
		return process.Process{}, err
	}
	env := append(os.Environ(), s.opts.Env...)
	env = append(env,
		"XOSPLAN_ADDRESS="+strings.Join(addrs, ","),
		"XOSPLAN_OPERATION="+key,
		"XOSPLAN_SCRIPT_ROOT="+root,
	)
	if s.opts.StateDir != "" {
		env = append(env, "XOSPLAN_STATE_DIR="+s.opts.StateDir)
	}
	output := req.Output
	return process.Process{
		Argv:    argv,
		Dir:     root,
		Env:     env,
		Stdin:   stdin,
		Timeout: driver.FirstPositive(op.Timeout, req.Timeout, s.opts.Timeout),
		Grace:   s.opts.KillGrace,
		Output: func(l string) {
			if output != nil {
				output(key + ": " + l)
			}
		},
		MaxStdout: maxReplyBytes,
		MaxTail:   s.opts.MaxOutput,
		Redact:    req.Redactor,
		Started:   startedFor(req, targets),
	}, nil
}

// replyMatch applies the instances of a script's reply to the targets
// they are about, as the documents arrive: by instanceId for a launch
// (the synthetic id the walk gave a new instance), else by natural id.
type replyMatch struct {
	key         string
	launch      bool
	discover    func(id string) *target
	output      func(string)
	byNatural   map[string]*target
	bySynthetic map[string]*target
	// strays names the first maxStrayNotes instances no target is about.
	stray  map[string]bool
	strays []string
}

func newReplyMatch(key string, targets []*target, launch bool, discover func(id string) *target, output func(string)) *replyMatch {
	m := &replyMatch{key: key, launch: launch, discover: discover, output: output,
		byNatural: map[string]*target{}, bySynthetic: map[string]*target{}, stray: map[string]bool{}}
	if m.output == nil {
		m.output = func(string) {}
	}
	for _, t := range targets {
		if t.natural != "" {
			m.byNatural[t.natural] = t
		}
		m.bySynthetic[t.synthetic] = t
	}
	return m
}

// apply applies one reply document.
func (m *replyMatch) apply(d replyDoc) {
	for _, iu := range d.instances {
		t := m.target(iu)
		if t == nil {
			// A few are named; a reply listing thousands must not flood
			// the output or the error.
			if !m.stray[iu.id] && len(m.strays) < maxStrayNotes {
				m.stray[iu.id] = true
				m.strays = append(m.strays, iu.id)
				m.output(fmt.Sprintf("%s: ignoring instance %q, which this run did not ask about", m.key, driver.Truncate(iu.id, 80)))
			}
			continue
		}
		t.seen = true
		if t.natural == "" || m.launch {
			t.natural = iu.id
			m.byNatural[iu.id] = t
		}
		if t.err != nil {
			continue
		}
		for _, u := range iu.updates {
			if t.keepName(u, m.output) {
				continue
			}
			pushed, err := t.model.apply(u)
			if err != nil {
				t.err = fmt.Errorf("reply %s: %v", u.rng, err)
				break
			}
			stream(u, pushed, t, m.output)
		}
		if t.err == nil {
			if probs := t.model.check(); len(probs) > 0 {
				t.err = fmt.Errorf("reply %s: %s", iu.rng, strings.Join(probs, "; "))
			}
		}
	}
}

// target is the target an instance of the reply is about, or nil.
func (m *replyMatch) target(iu instanceUpdates) *target {
	t := m.byNatural[iu.id]
	if m.launch {
		if id := instanceIDOf(iu.updates); id != "" {
			if bt := m.bySynthetic[id]; bt != nil {
				t = bt
			}
		}
	}
	if t == nil && m.discover != nil {
		t = m.discover(iu.id)
	}
	return t
}

// instanceIDOf returns the instanceId an instance's updates set.
func instanceIDOf(ups []update) string {
	for _, u := range ups {
		if (u.op == opReplace || u.op == opSet) && len(u.path) == 1 && u.path[0] == "instanceId" {
			switch v := u.value.(type) {
			case string:
				return v
			case int64:
				// An all-digit id written without quotes reads as a number.
				return strconv.FormatInt(v, 10)
			}
		}
	}
	return ""
}

// stream passes what an update appended to the Output callback, and
// collects the results of the command being invoked.
func stream(u update, pushed []graph.Value, t *target, output func(string)) {
	for _, l := range streamed(u, pushed, t) {
		output(l)
	}
	t.notePushed(u, pushed)
	if isCommandResults(u, t) {
		for _, r := range pushed {
			m, _ := r.(map[string]graph.Value)
			t.results = append(t.results, commandResult(m))
		}
	}
}

// streamed returns the lines the entries an update appended show: the
// activity log's, and the results of the command being invoked.
func streamed(u update, pushed []graph.Value, t *target) []string {
	var out []string
	switch {
	case len(u.path) == 1 && u.path[0] == "activityLog":
		for _, e := range pushed {
			m, _ := e.(map[string]graph.Value)
			out = append(out, fmt.Sprintf("[%s] %s: %s", m["severity"], t.req.Address, m["message"]))
		}
	case isCommandResults(u, t):
		for _, r := range pushed {
			m, _ := r.(map[string]graph.Value)
			cr := commandResult(m)
			b, _ := json.Marshal(cr.Values)
			kind := "result"
			if cr.Intermediate {
				kind = "intermediate"
			}
			out = append(out, kind+" "+string(b))
		}
	}
	return out
}

// isCommandResults reports whether u appends results of the command t
// invokes.
func isCommandResults(u update, t *target) bool {
	return len(u.path) == 2 && u.path[0] == "commands" && u.op == opPushAll && u.path[1] == t.commandID && t.commandID != ""
}

func commandResult(m map[string]graph.Value) driver.CommandResult {
	cr := driver.CommandResult{Values: map[string]graph.Value{}}
	for k, v := range m {
		if k == "$intermediate" {
			cr.Intermediate, _ = v.(bool)
			continue
		}
		cr.Values[k] = v
	}
	return cr
}

// preview returns the lines a reply document would stream once applied
// (stream), without applying it: instances are matched as apply matches
// them, except that none is discovered.
func (m *replyMatch) preview(d replyDoc) []string {
	var out []string
	for _, iu := range d.instances {
		t := m.byNatural[iu.id]
		if m.launch {
			if bt := m.bySynthetic[instanceIDOf(iu.updates)]; bt != nil {
				t = bt
			}
		}
		if t == nil || t.err != nil {
			continue
		}
		for _, u := range iu.updates {
			out = append(out, streamed(u, appendedBy(u), t)...)
		}
	}
	return out
}

// replyStream splits a script's stdout into YAML documents as lines
// arrive, so that each document is applied (and its command results
// streamed) as soon as it is complete: when "---" starts the next one,
// "..." ends it, or the script ends.
//
// A script that writes a document and then works on (a command that
// reports "rebooting", then reboots) may start the next document only
// when it has more to say, so a document is also previewed once the
// script has written nothing for replyIdle: when what it wrote so far
// parses, the lines applying it would stream (command results, activity
// log) are shown then, and not again when it is applied. Only the
// display runs ahead: the instance model changes when the document is
// known to be complete, so a script that pauses in the middle of a
// document loses nothing (at worst a result it was still writing shows
// early in part, then again whole).
type replyStream struct {
	file  string
	onDoc func(replyDoc)
	// output shows streamed lines; preview, when set, returns those a
	// document would stream.
	output  func(string)
	preview func(replyDoc) []string

	mu      sync.Mutex
	buf     bytes.Buffer
	line0   int // line number of buf's first line, 1-based
	lines   int
	diags   diag.Diagnostics
	stopped bool
	// quiet counts the watcher's ticks without a new line since lines was
	// quietLines; shown are the lines previewed of the document in buf,
	// skip those of the documents being applied, which show does not show
	// again.
	quiet      int
	quietLines int
	shown      []string
	skip       []string
	// previewed is how much of buf the last preview read: a script that
	// stays quiet is not previewed again.
	previewed int
}

// show shows a line that applying a document streams, unless the preview
// showed it already: from the first line that differs from the preview's
// (a result the script was still writing), every line is shown. It runs
// within flush.
func (r *replyStream) show(l string) {
	if len(r.skip) > 0 && r.skip[0] == l {
		r.skip = r.skip[1:]
		return
	}
	r.skip = nil
	r.output(l)
}

// replyIdle is how long a script writes nothing before the document it
// wrote so far is previewed.
const replyIdle = 150 * time.Millisecond

// idleTicks is how many times the watcher looks within replyIdle.
const idleTicks = 3

// maxPreviewBytes bounds the document previewed: one that large is no
// progress report, and parsing it at every pause (a script slowed down
// while it writes megabytes) would cost more than showing it late.
const maxPreviewBytes = 64 << 10

// watch previews the buffered document whenever the script has been quiet
// for replyIdle, until the returned function is called (which waits for
// the watcher to end).
func (r *replyStream) watch() (stop func()) {
	if r.preview == nil {
		return func() {}
	}
	return driver.Every(replyIdle/idleTicks, r.idle)
}

// idle previews the buffered document when the script has been quiet for
// replyIdle and has written more since the last preview.
func (r *replyStream) idle() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lines != r.quietLines {
		r.quietLines, r.quiet = r.lines, 0
		return
	}
	if r.quiet++; r.quiet < idleTicks {
		return
	}
	if r.stopped || r.buf.Len() == r.previewed || r.buf.Len() > maxPreviewBytes || strings.TrimSpace(r.buf.String()) == "" {
		return
	}
	r.previewed = r.buf.Len()
	docs, diags := parseReplyDocs(r.file, r.buf.Bytes())
	if diags.HasErrors() {
		return // not a whole document yet
	}
	var lines []string
	for _, d := range docs {
		lines = append(lines, r.preview(d)...)
	}
	for i, l := range lines {
		if i < len(r.shown) && r.shown[i] == l {
			continue
		}
		r.output(l)
	}
	r.shown = lines
}

func (r *replyStream) line(l string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines++
	if r.stopped {
		return
	}
	isStart := l == "---" || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "---\t")
	if isStart && strings.TrimSpace(r.buf.String()) != "" {
		r.flush()
	}
	if r.buf.Len() == 0 {
		r.line0 = r.lines
	}
	r.buf.WriteString(l)
	r.buf.WriteByte('\n')
	if strings.TrimRight(l, " \t") == "..." {
		r.flush()
	}
}

func (r *replyStream) finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.stopped && strings.TrimSpace(r.buf.String()) != "" {
		r.flush()
	}
}

// flush applies the buffered documents. The caller holds r.mu.
func (r *replyStream) flush() {
	data := bytes.Clone(r.buf.Bytes())
	r.buf.Reset()
	r.skip, r.shown, r.previewed = r.shown, nil, 0
	docs, diags := parseReplyDocs(r.file, data)
	for i := range diags {
		// Positions count from the start of the whole output.
		if diags[i].Range.Start.Line > 0 {
			diags[i].Range.Start.Line += r.line0 - 1
		}
		if diags[i].Range.End.Line > 0 {
			diags[i].Range.End.Line += r.line0 - 1
		}
	}
	for _, d := range docs {
		for i := range d.instances {
			shift(&d.instances[i].rng, r.line0-1)
			for j := range d.instances[i].updates {
				shift(&d.instances[i].updates[j].rng, r.line0-1)
			}
		}
	}
	r.diags = r.diags.Extend(diags)
	if diags.HasErrors() {
		r.stopped = true
	}
	for _, d := range docs {
		r.onDoc(d)
	}
	r.skip = nil
}

func shift(rng *diag.Range, n int) {
	if rng.Start.Line > 0 {
		rng.Start.Line += n
	}
	if rng.End.Line > 0 {
		rng.End.Line += n
	}
}

// awaitDestroyed polls until every destroyed instance reports all status
// flags false: the health check when there is one, else the destroy script
// again (destroy is idempotent). It gives up at the operation's timeout.
func (s *Driver) awaitDestroyed(ctx context.Context, targets []*target, run *scriptRun) error {
	first := targets[0].req
	drv, _ := driver.ResourceDriver(first)
	pollKey := graph.OpHealthCheck
	if !drv.HasOperation(pollKey) {
		pollKey = graph.OpDestroy
	}
	timeout := driver.FirstPositive(drv.Operations[graph.OpDestroy].Timeout, first.Timeout, s.opts.Timeout)
	deadline := time.Now().Add(timeout)
	for {
		var pending []*target
		for _, t := range targets {
			if !t.seen || t.err != nil {
				continue
			}
			switch st := flags(t.model["status"]); {
			case allFlagsFalse(st):
			case st.Failed && !st.Converging:
				// Not going anywhere: waiting would only burn the timeout.
				t.err = fmt.Errorf("the instance failed while being destroyed%s", messageSuffix(st))
			default:
				pending = append(pending, t)
			}
		}
		if len(pending) == 0 {
			return nil
		}
		if time.Now().Add(s.opts.PollInterval).After(deadline) {
			return fmt.Errorf("%w: %d instance(s) still not destroyed after %s", process.ErrTimeout, len(pending), timeout)
		}
		if first.Output != nil {
			first.Output(fmt.Sprintf("%s: waiting for %d instance(s) to be destroyed", graph.OpDestroy, len(pending)))
		}
		t := time.NewTimer(s.opts.PollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("waiting for destroy: %w", ctx.Err())
		case <-t.C:
		}
		doc := map[string]any{"configuration": factoryConfiguration(first.Factory)}
		insts := map[string]any{}
		for _, p := range pending {
			insts[p.natural] = nil
		}
		doc["instances"] = insts
		r, err := s.runScript(ctx, first, pollKey, doc, pending, false)
		run.tail = r.tail
		if err != nil {
			return err
		}
	}
}

// discover runs the discovery script of a factory and reports every
// instance it lists.
func (s *Driver) discover(ctx context.Context, req driver.Request) (driver.Outcome, error) {
	drv, err := driver.ResourceDriver(req)
	if err != nil {
		return driver.Failed(req, nil, err)
	}
	prior := state.Feedback{}
	if req.Prior != nil {
		prior = req.Prior.Feedback
	}
	if !drv.HasOperation(graph.OpDiscovery) {
		return driver.Failed(req, &prior, errors.New("no discoveryScript"))
	}
	spec := req.Resolved
	if spec == nil && req.Resource != nil {
		spec = req.Resource.Spec
	}
	doc := map[string]any{"configuration": configurationOf(spec)}
	found := map[string]*target{}
	run, err := s.runScriptWith(ctx, req, graph.OpDiscovery, doc, nil, false, func(id string) *target {
		t := &target{req: req, natural: id, model: instanceModel{}}
		found[id] = t
		return t
	})
	if err != nil {
		prior.Output = run.tail
		return driver.Failed(req, &prior, fmt.Errorf("discovery script %s: %w", drv.Operations[graph.OpDiscovery].Implementation, err))
	}
	mappings := factoryMappings(req.Prior)
	var disc []driver.Discovered
	var errs []error
	ids := make([]string, 0, len(found))
	for id := range found {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t := found[id]
		if t.err != nil {
			errs = append(errs, fmt.Errorf("instance %s: %w", id, t.err))
			continue
		}
		fb := t.model.feedback(id, mappings)
		fb.BackendCode, fb.BackendStatus = state.BackendOK, "discovered"
		name, _ := t.model["name"].(string)
		if name == "" {
			name = id
		}
		disc = append(disc, driver.Discovered{NaturalID: id, Name: name, Feedback: fb, StatusReported: t.model["status"] != nil})
	}
	prior.Output = run.tail
	prior.Status = state.Status{Active: true}
	prior.BackendCode, prior.BackendStatus = state.BackendOK, fmt.Sprintf("discovered %d instance(s)", len(disc))
	if len(errs) > 0 {
		return driver.Failed(req, &prior, fmt.Errorf("discovery script %s: %w", drv.Operations[graph.OpDiscovery].Implementation, errors.Join(errs...)))
	}
	return driver.Outcome{Feedback: prior, Discovered: disc}, nil
}

// Invoke runs the command script of command ("interface.pin", a
// receive-command pin) on the recorded instance req.Prior with args. The
// results the script pushes to commands.<command id> go to req.Output as
// they arrive, one line each: "intermediate {json}" or "result {json}",
// and are returned in Outcome.Results. A script that returns no result is
// not an error: the protocol lets a later health check deliver it.
func (s *Driver) Invoke(ctx context.Context, req driver.Request, command string, args map[string]graph.Value) (driver.Outcome, error) {
	req.Action = "command"
	iface, pin, ok := strings.Cut(command, ".")
	if !ok || iface == "" || pin == "" {
		return driver.Failed(req, nil, fmt.Errorf("command %q must be <interface>.<pin>", command))
	}
	if req.Prior == nil || req.Prior.Feedback.InstanceID == "" {
		return driver.Failed(req, nil, fmt.Errorf("%s has no recorded instance to run %s on", req.Address, command))
	}
	drv, err := driver.ResourceDriver(req)
	if err != nil {
		return driver.Failed(req, nil, err)
	}
	key := graph.OpCommandPrefix + command
	if !drv.HasOperation(key) {
		return driver.Failed(req, &req.Prior.Feedback, fmt.Errorf("%s has no command script for %s", req.Address, command))
	}
	t := &target{req: req, natural: req.Prior.Feedback.InstanceID, model: priorModel(req.Prior), command: command, commandID: newCommandID(),
		name: recordedName(req.Prior)}
	if id, ok := req.Prior.Feedback.Extra[driver.ExtraInstanceID].(string); ok {
		t.synthetic = id
	}
	a := map[string]any{}
	for k, v := range args {
		a[k] = plain(v)
	}
	doc := map[string]any{
		"configuration": factoryConfiguration(req.Factory),
		"instances": map[string]any{t.natural: map[string]any{
			"commands": map[string]any{t.commandID: map[string]any{iface: map[string]any{pin: a}}},
		}},
	}
	run, err := s.runScript(ctx, req, key, doc, []*target{t}, false)
	fb := t.feedback(factoryMappings(req.Factory), time.Now())
	fb.Output = run.tail
	if err == nil {
		err = t.err
	}
	if err != nil {
		err = fmt.Errorf("command script %s: %w", drv.Operations[key].Implementation, err)
		logFailure(&fb, req, err)
		o, err := driver.Failed(req, &fb, err)
		o.Results, o.CommandID = t.results, t.commandID
		return o, err
	}
	fb.BackendCode, fb.BackendStatus = state.BackendOK, statusText("command", fb.Status)
	return driver.Outcome{Feedback: fb, Results: t.results, CommandID: t.commandID}, nil
}

// newCommandID returns an opaque command id that sorts by creation time.
func newCommandID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%013x%s", time.Now().UnixNano()/1000, hex.EncodeToString(b[:]))
}
