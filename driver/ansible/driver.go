package ansible

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/process"
	"github.com/xosplan/xosplan/pkg/state"
)

// Program is the command the driver runs.
const Program = "ansible-playbook"

// ErrNoAnsible is wrapped by the error of an operation that cannot run
// because ansible-playbook is not installed.
var ErrNoAnsible = errors.New(Program + " was not found on PATH: install ansible-core (Debian and Ubuntu: apt-get install ansible-core; elsewhere: pip install ansible-core) to run playbook implementations")

// Available reports whether ansible-playbook can be found on PATH, and
// the error to show when it cannot (wrapping ErrNoAnsible).
func Available() error {
	if _, err := exec.LookPath(Program); err != nil {
		return ErrNoAnsible
	}
	return nil
}

// StatusOutput is the set_stats key through which a lifecycle playbook
// reports the node converging (its value "converging"), the exec driver's
// driver.ReadinessOutput: the walk then holds its dependents until the
// health check reports it active. It is never an attribute. A health
// check playbook reports "status" and "message" as an exec health check
// does.
const StatusOutput = driver.ReadinessOutput

// Driver runs TOSCA operations whose implementations are Ansible
// playbooks (graph.DriverAnsible) with ansible-playbook, as xOpera does.
// The operations of each action, and their order, are the exec driver's;
// so are timeouts, cancellation, output bounds, redaction and the process
// group of each run (pkg/process). See docs/drivers.md.
type Driver struct {
	opts driver.Options
	// sweep removes, once, the run folders killed processes left.
	sweep sync.Once
	// defaults is the SSH login of hosts that give none
	// (OPERA_SSH_USER, OPERA_SSH_IDENTITY_FILE, as xOpera reads them).
	defaults Host
}

// New returns the Ansible driver.
func New(opts driver.Options) *Driver {
	return &Driver{opts: opts.WithDefaults(), defaults: Host{User: os.Getenv("OPERA_SSH_USER"), KeyFile: os.Getenv("OPERA_SSH_IDENTITY_FILE")}}
}

// MaxConcurrent returns driver.Options.MaxConcurrent.
func (d *Driver) MaxConcurrent() int { return d.opts.MaxConcurrent }

// Source records, for a resource this driver applied, the folder it was
// applied from (Request.WorkDir), where a later delete or health check
// finds its playbooks (driver.SourceRecorder).
func (*Driver) Source(req driver.Request) (key, dir string) {
	return driver.ExtraWorkDir, req.WorkDir
}

// OperationsFor returns the operation keys the driver runs for action
// (driver.ActionCreate, ActionUpdate, ActionDelete) on drv, in order: the
// shared lifecycle order (driver.LifecycleOperations), exec's too.
func OperationsFor(action string, drv graph.Driver) []string {
	return driver.LifecycleOperations(action, drv)
}

// Apply runs the playbooks of req.Action in order and stops at the first
// failure.
func (d *Driver) Apply(ctx context.Context, req driver.Request) (driver.Outcome, error) {
	drv, err := driver.ResourceDriver(req)
	if err != nil {
		return driver.Failed(req, nil, err)
	}
	switch req.Action {
	case driver.ActionRead, driver.ActionHealth:
		return d.observe(ctx, req, drv)
	case driver.ActionCreate, driver.ActionUpdate, driver.ActionDelete:
	default:
		return driver.Failed(req, nil, fmt.Errorf("the ansible driver cannot %s", req.Action))
	}
	fb := state.Feedback{Attributes: map[string]graph.Value{}}
	if req.Prior != nil && req.Action != driver.ActionDelete {
		maps.Copy(fb.Attributes, req.Prior.Feedback.Attributes)
		fb.InstanceID = req.Prior.Feedback.InstanceID
		fb.Signals = req.Prior.Feedback.Signals
	}
	if req.Action == driver.ActionUpdate && req.Operations == nil && !drv.HasOperation("Standard.configure") {
		return driver.Failed(req, &fb, errors.New("no Standard.configure operation to update in place; the resource must be replaced"))
	}
	converging, err := d.runAll(ctx, req, drv, &fb)
	if err != nil {
		return driver.Failed(req, &fb, err)
	}
	fb.BackendCode, fb.BackendStatus = state.BackendOK, "ok"
	if len(fb.Attributes) == 0 {
		fb.Attributes = nil
	}
	switch {
	case req.Action == driver.ActionDelete:
		fb.Attributes, fb.Signals = nil, nil
		fb.BackendStatus = "deleted"
		return driver.Outcome{Feedback: fb, Gone: true}, nil
	case converging:
		fb.BackendStatus = "converging"
		fb.Status = state.Status{Converging: true}
		return driver.Outcome{Feedback: fb, Converging: true}, nil
	}
	fb.Status = state.Status{Active: true}
	return driver.Outcome{Feedback: fb}, nil
}

// observe answers a read or a health check: the recorded feedback, after
// the health check playbook when there is one and the action is health.
func (d *Driver) observe(ctx context.Context, req driver.Request, drv graph.Driver) (driver.Outcome, error) {
	return driver.Observe(ctx, req, drv, d.health, d.lookup)
}

// runAll runs the playbooks of req.Action in order, into fb: their
// outputs as attributes, the output tails. It stops at the first failure
// and reports whether one reported the node converging.
func (d *Driver) runAll(ctx context.Context, req driver.Request, drv graph.Driver, fb *state.Feedback) (converging bool, err error) {
	var tails []string
	defer func() { fb.Output = driver.JoinTails(tails, d.opts.MaxOutput) }()
	for _, key := range driver.RequestOperations(req, drv) {
		op := drv.Operations[key]
		// Its inputs read what the playbooks before it reported.
		opReq, err := req.ForOperation(ctx, key, fb.Attributes)
		if err != nil {
			return converging, err
		}
		outputs, tail, err := d.run(ctx, opReq, key, op)
		if tail != "" {
			tails = append(tails, "["+key+"]\n"+strings.TrimSuffix(tail, "\n"))
		}
		if err == nil {
			err = missingOutputs(op, outputs)
		}
		if err != nil {
			return converging, fmt.Errorf("%s (%s): %w", key, op.Implementation, err)
		}
		if s, _ := outputs[StatusOutput].(string); s == "converging" {
			converging = true
		}
		for name, value := range outputs {
			if name != StatusOutput {
				fb.Attributes[outputAttribute(op, name)] = value
			}
		}
	}
	return converging, nil
}

// health runs the health check playbook over the recorded feedback fb:
// set_stats status (active, converging, failed, missing; active when
// unset) and message, as the exec driver's check protocol; other outputs
// are attributes.
func (d *Driver) health(ctx context.Context, req driver.Request, op graph.Operation, fb state.Feedback) (driver.Outcome, error) {
	outputs, tail, err := d.run(ctx, req, graph.OpHealthCheck, op)
	if out, ferr, failed := driver.RanCheck(req, &fb, graph.OpHealthCheck, "health check", op, tail, d.opts.MaxOutput, err); failed {
		return out, ferr
	}
	status, _ := outputs["status"].(string)
	message, _ := outputs["message"].(string)
	attrs := maps.Clone(fb.Attributes)
	for name, value := range outputs {
		if name == "status" || name == "message" || name == StatusOutput {
			continue
		}
		if attrs == nil {
			attrs = map[string]graph.Value{}
		}
		attrs[outputAttribute(op, name)] = value
	}
	fb.Attributes = attrs
	return driver.HealthOutcome(req, fb, status, message)
}

// lookup runs the lookup playbook of an unmanaged resource over the
// recorded feedback fb: the keys come as the variable XOSPLAN_LOOKUP, and
// its set_stats status (found, missing), id, objects and other values are
// read as the exec driver's lookup protocol reads its outputs.
func (d *Driver) lookup(ctx context.Context, req driver.Request, op graph.Operation, fb state.Feedback) (driver.Outcome, error) {
	outputs, tail, err := d.run(ctx, req, graph.OpLookup, op)
	if out, ferr, failed := driver.RanCheck(req, &fb, graph.OpLookup, "the lookup", op, tail, d.opts.MaxOutput, err); failed {
		return out, ferr
	}
	return driver.LookupOutcome(req, fb, outputs, func(name string) string { return outputAttribute(op, name) })
}

// run runs one playbook and returns what it reported with set_stats and
// the tail of what it printed.
func (d *Driver) run(ctx context.Context, req driver.Request, key string, op graph.Operation) (map[string]graph.Value, string, error) {
	return d.runWith(ctx, req, key, op, nil)
}

// runWith is run with extra arguments for ansible-playbook (check mode's).
func (d *Driver) runWith(ctx context.Context, req driver.Request, key string, op graph.Operation, extra []string) (map[string]graph.Value, string, error) {
	workDir := req.WorkDir
	if workDir == "" {
		workDir = "."
	}
	dir, err := filepath.Abs(workDir)
	if err != nil {
		return nil, "", err
	}
	root, err := userfile.NewRoot(d.rootDirs(dir)...)
	if err != nil {
		return nil, "", fmt.Errorf("implementation %s: %w", op.Implementation, err)
	}
	playbook, err := confine(root, dir, op.Implementation)
	if err != nil {
		return nil, "", err
	}
	var deps []string
	for _, dep := range op.Dependencies {
		p, err := confine(root, dir, dep)
		if err != nil {
			return nil, "", err
		}
		deps = append(deps, p)
	}
	program, err := exec.LookPath(Program)
	if err != nil {
		return nil, "", driver.NeedsChange(ErrNoAnsible)
	}
	inputs, err := operationInputs(req, key, op)
	if err != nil {
		return nil, "", err
	}
	vars, err := Vars(inputs)
	if err != nil {
		return nil, "", err
	}
	host := HostOf(inputs[graph.InputAnsibleHost], d.defaults)
	d.sweep.Do(func() { sweepStale(os.TempDir()) })
	drv, _ := driver.ResourceDriver(req)
	rd, err := newRunDir(ctx, playbook, deps, artifactFiles(root, dir, req, drv), dir)
	if err != nil {
		return nil, "", err
	}
	defer rd.remove()
	if err := os.WriteFile(rd.inventory(), Inventory(host), 0o600); err != nil {
		return nil, "", fmt.Errorf("writing the inventory: %w", err)
	}
	if err := writeVars(rd.vars(), vars); err != nil {
		return nil, "", err
	}
	env := append(os.Environ(), d.opts.Env...)
	env = append(env,
		"ANSIBLE_CALLBACK_PLUGINS="+filepath.Join(rd.priv, "plugins"),
		"ANSIBLE_CALLBACKS_ENABLED=xosplan_stats",
		"ANSIBLE_STDOUT_CALLBACK=default",
		"ANSIBLE_RETRY_FILES_ENABLED=False",
		"ANSIBLE_NOCOLOR=1",
		"ANSIBLE_FORCE_COLOR=0",
		"ANSIBLE_LOCAL_TEMP="+filepath.Join(rd.priv, "tmp"),
		"XOSPLAN_ANSIBLE_STATS="+rd.stats(),
		"XOSPLAN_ADDRESS="+req.Address,
		"XOSPLAN_OPERATION="+key,
		"XOSPLAN_ACTION="+req.Action,
	)
	if d.opts.StateDir != "" {
		env = append(env, "XOSPLAN_STATE_DIR="+d.opts.StateDir)
	}
	if host.Local() {
		// On this machine the modules' files (with their arguments) stay
		// in the run's private folder too, rather than ~/.ansible/tmp.
		env = append(env, "ANSIBLE_REMOTE_TEMP="+filepath.Join(rd.priv, "tmp", "remote"))
	}
	var output func(string)
	if req.Output != nil {
		output = func(l string) {
			if strings.TrimSpace(l) != "" {
				req.Output(key + ": " + l)
			}
		}
	}
	res, runErr := process.Process{
		Argv:       append(append([]string{program, "-i", rd.inventory(), "-e", "@" + rd.vars()}, extra...), rd.playbook),
		Dir:        rd.run,
		Env:        env,
		Timeout:    driver.FirstPositive(op.Timeout, req.Timeout, d.opts.Timeout),
		Grace:      d.opts.KillGrace,
		Output:     output,
		EchoStdout: true,
		MaxTail:    d.opts.MaxOutput,
		Redact:     req.Redactor,
		Started:    req.Started,
	}.Run(ctx)
	if runErr != nil {
		return nil, res.Tail, runErr
	}
	outputs, err := readStats(ctx, rd.stats())
	return outputs, res.Tail, err
}

// artifactFiles returns the files of the node's artifacts
// (driver.NodeArtifacts: its type's and its template's, relative to the
// template's folder dir) that exist inside root; the others (files
// elsewhere) are left out: a playbook that needs one fails on it.
func artifactFiles(root *userfile.Root, dir string, req driver.Request, drv graph.Driver) []string {
	spec := req.Resolved
	if spec == nil && req.Resource != nil {
		spec = req.Resource.Spec
	}
	var out []string
	for _, f := range driver.NodeArtifacts(drv, spec) {
		if p, err := confine(root, dir, f); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// rootDirs are the folders implementations are confined to:
// DriverOptions.Root, else the resource's own folder.
func (d *Driver) rootDirs(dir string) []string {
	if len(d.opts.Root) > 0 {
		return d.opts.Root
	}
	return []string{dir}
}

// confine returns the file impl names, relative to dir, once it is
// known to lie inside root; a file outside it, or missing, is a failure
// only a change mends.
func confine(root *userfile.Root, dir, impl string) (string, error) {
	p := impl
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, filepath.FromSlash(p))
	}
	if _, err := root.Confine(p); err != nil {
		if errors.Is(err, userfile.ErrOutsideRoot) {
			return "", driver.NeedsChange(fmt.Errorf("%s: %w (the configuration root is %s)", impl, driver.ErrImplementationPath, root))
		}
		return "", driver.NeedsChange(fmt.Errorf("implementation: %w", err))
	}
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return "", driver.NeedsChange(fmt.Errorf("implementation %s: %w", impl, fs.ErrNotExist))
	}
	return p, nil
}

// operationInputs returns the inputs of the operation: those the walk
// resolved, else the declared ones, which must then hold no Unknown,
// but on a delete, where one that cannot be resolved any more is left
// out with a note.
func operationInputs(req driver.Request, key string, op graph.Operation) (map[string]graph.Value, error) {
	if in, ok := req.Inputs[key]; ok {
		return in, nil
	}
	out := map[string]graph.Value{}
	for _, name := range slices.Sorted(maps.Keys(op.Inputs)) {
		v := op.Inputs[name]
		if graph.HasUnknown(v) {
			if req.Action != driver.ActionDelete && name != graph.InputAnsibleHost {
				return nil, fmt.Errorf("input %s is not resolved (%s)", name, graph.Render(v))
			}
			if req.Output != nil && name != graph.InputAnsibleHost {
				req.Output(fmt.Sprintf("%s: input %s left unset: %s cannot be resolved", key, name, graph.Render(v)))
			}
			continue
		}
		out[name] = v
	}
	return out, nil
}

// missingOutputs is the error of an operation whose outputs: mapping
// names an output the playbook did not report (as xOpera fails it).
func missingOutputs(op graph.Operation, outputs map[string]graph.Value) error {
	var missing []string
	for name := range op.Outputs {
		if _, ok := outputs[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	return fmt.Errorf("the playbook did not report %s with set_stats", strings.Join(missing, ", "))
}

// outputAttribute is the attribute an output sets: the one the
// operation's outputs map names, else, for a relationship's operation
// (graph.InputAnsibleRelationship), the relationship's attribute of the
// output's name, else the node's.
func outputAttribute(op graph.Operation, name string) string {
	if a, ok := op.Outputs[name]; ok && a != "" {
		return a
	}
	if rel, ok := op.Inputs[graph.InputAnsibleRelationship].(map[string]graph.Value); ok {
		req, _ := rel["requirement"].(string)
		idx, _ := rel["index"].(int64)
		target, _ := rel["target"].(string)
		if req != "" && target != "" {
			return graph.OutputAttribute{Requirement: req, Index: int(idx), Target: target, Name: name}.String()
		}
	}
	return name
}
