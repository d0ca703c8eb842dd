package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/process"
	"github.com/xosplan/xosplan/pkg/state"
)

// Driver runs TOSCA interface operations (graph.DriverExec) as subprocesses.
//
// Which operations run, in this order, for each action (an operation the
// resource does not define is skipped; driver.LifecycleOperations gives
// the order, which a driver of playbooks shares):
//
//	create:  Standard.create, Configure.pre_configure_source,
//	         Configure.pre_configure_target, Standard.configure,
//	         Configure.post_configure_source, Configure.post_configure_target,
//	         Standard.start, Configure.add_target, Configure.add_source
//	update:  Configure.pre_configure_source, Configure.pre_configure_target,
//	         Standard.configure, Configure.post_configure_source,
//	         Configure.post_configure_target (an update needs
//	         Standard.configure; without it the planner replaces); an
//	         update of the health check alone calls no driver
//	         (planner.ResourceChange.RecordsOnly)
//	delete:  Configure.remove_target, Configure.remove_source,
//	         Standard.stop, Standard.delete
//	health:  the health check (graph.OpHealthCheck, a TOSCA interface of
//	         type xosplan.interfaces.Health); without one nothing runs
//	         and the recorded feedback is returned, active
//	read:    the lookup (graph.OpLookup, a TOSCA interface of type
//	         xosplan.interfaces.Lookup) of an unmanaged resource; without
//	         one nothing runs and the read is recorded "not checked"
//	         (driver.NotChecked), never ok.
//
// The lookup protocol. The lookup runs as an operation does (below), with
// XOSPLAN_ACTION=read and the keys to find the object by (XOS's tosca_key
// fields, the properties a select template assigns, an import filter) as
// a JSON object in XOSPLAN_LOOKUP: {"name":"mysite"}. A non-zero exit
// status is a failed lookup (retried like any failure). Exit status 0
// reports, in $XOSPLAN_OUTPUTS:
//
//	status=missing     no object has the keys: the read fails, naming them
//	status=found       (or no status line) the object is found; id=… is
//	                   its id (recorded as the instance id), other
//	                   outputs are its attributes
//	objects=[…]        instead of one object, a JSON list of objects
//	                   (each with an "id" field): xosplan keeps those
//	                   whose fields equal every key, and exactly one must
//	                   remain (none is not found, several are ambiguous)
//
// The health check protocol. The check runs as an operation does (below),
// with XOSPLAN_ACTION=health. A non-zero exit status reports the object
// failed. Exit status 0 reports what the line status=… in
// $XOSPLAN_OUTPUTS says, active when there is none:
//
//	status=active      healthy
//	status=converging  not ready yet (dependents wait for it)
//	status=failed      broken: the next apply runs its create again
//	status=missing     gone (deleted outside xosplan): the next apply
//	                   creates it again
//
// Any other status is a failed check. An optional message=TEXT line is
// the status message; other outputs are attributes, as an operation's
// are. Refresh (and sync) record failed and missing alike as a failed
// object, which the planner repairs (planner.ReasonInstanceFailed).
//
// Relationship operations are those of the node's requirements, compiled
// onto the source node (pkg/tosca). Each relationship runs its own: where
// several relationships of the node define one operation, each has its
// own key, "Configure.<operation>@<requirement>[<index>]", and they run
// in turn at that operation's place above, by requirement name then index
// (driver.PhaseOperations); its outputs set the attributes of its own
// relationship. The target-side ones (pre_configure_target, add_source,
// …: driver.TargetSide) run in the source's request too, with the inputs
// the walk resolved, since both ends are on this machine.
//
// How an operation runs. The implementation path is relative to
// Request.WorkDir (the template's folder), which is also the working
// directory. ".sh" runs with sh, ".bash" with bash, ".py" with python3; a
// file with another or no extension runs with the interpreter its "#!"
// line names; anything else is refused. The process gets the xosplan
// process's environment, driver.Options.Env, then:
//
//   - every operation input as a variable of the same name: strings as
//     they are, other values as JSON (numbers 8080, booleans true, lists
//     and maps as JSON text); a name that cannot be a variable ("", "=" or
//     NUL in it) fails the operation;
//   - XOSPLAN_ADDRESS: the resource address;
//   - XOSPLAN_OPERATION: the operation key ("Standard.create");
//   - XOSPLAN_ACTION: the action ("create", "update", "delete");
//   - XOSPLAN_STATE_DIR: driver.Options.StateDir, when set;
//   - XOSPLAN_OUTPUTS: a file the script appends its outputs to.
//
// Readiness: an operation that writes xosplan_status=converging
// (driver.ReadinessOutput) reports the object started but not ready; the walk
// then runs the health check until it reports active before any
// dependent starts.
//
// Outputs: the convention of GitHub Actions' $GITHUB_OUTPUT. The script
// writes "name=value" lines to $XOSPLAN_OUTPUTS, or for a multi-line
// value "name<<DELIM", the lines, then "DELIM" alone. Each output becomes
// an attribute: the one the operation's TOSCA 1.3 "outputs:" maps it to,
// else the attribute of the same name. Values are strings; a later
// operation's value for the same attribute wins. Attributes of the prior
// apply are kept unless overwritten (delete drops them all).
//
// Each operation runs in a process group of its own that ends with it
// (see process.Process.Run): a background child the script leaves is
// ended when the script exits, and on Linux the script dies with xosplan.
//
// Exit status 0 is success. Otherwise the action fails with the exit
// status and the last lines of stderr, and no later operation of the
// action runs. The tail of stdout and stderr of every operation is kept
// in Feedback.Output; each line also goes to Request.Output as it comes,
// prefixed with the operation key.
type Driver struct{ opts driver.Options }

// New returns the exec driver.
func New(opts driver.Options) *Driver { return &Driver{opts: opts.WithDefaults()} }

// MaxConcurrent returns driver.Options.MaxConcurrent.
func (e *Driver) MaxConcurrent() int { return e.opts.MaxConcurrent }

// Source records, for a resource this driver applied, the folder it was applied from (Request.WorkDir), where a later delete or health check runs its operations.
func (*Driver) Source(req driver.Request) (key, dir string) {
	return driver.ExtraWorkDir, req.WorkDir
}

// Apply runs the operations of req.Action in order and stops at the first
// failure.
func (e *Driver) Apply(ctx context.Context, req driver.Request) (driver.Outcome, error) {
	drv, err := driver.ResourceDriver(req)
	if err != nil {
		return driver.Failed(req, nil, err)
	}
	fb := state.Feedback{Attributes: map[string]graph.Value{}}
	if req.Prior != nil && req.Action != driver.ActionDelete {
		for k, v := range req.Prior.Feedback.Attributes {
			fb.Attributes[k] = v
		}
		fb.InstanceID = req.Prior.Feedback.InstanceID
		fb.Signals = req.Prior.Feedback.Signals
	}
	switch req.Action {
	case driver.ActionRead, driver.ActionHealth:
		return driver.Observe(ctx, req, drv, e.health, e.lookup)
	case driver.ActionCreate, driver.ActionUpdate, driver.ActionDelete:
	default:
		return driver.Failed(req, &fb, fmt.Errorf("the exec driver cannot %s", req.Action))
	}
	if req.Action == driver.ActionUpdate && req.Operations == nil && !drv.HasOperation("Standard.configure") {
		return driver.Failed(req, &fb, errors.New("no Standard.configure operation to update in place; the resource must be replaced"))
	}
	var tails []string
	converging := false
	for _, key := range driver.RequestOperations(req, drv) {
		op := drv.Operations[key]
		opReq, err := req.ForOperation(ctx, key, fb.Attributes)
		if err != nil {
			fb.Output = driver.JoinTails(tails, e.opts.MaxOutput)
			return driver.Failed(req, &fb, err)
		}
		outputs, tail, err := e.runOperation(ctx, opReq, key, op)
		if tail != "" {
			tails = append(tails, "["+key+"]\n"+strings.TrimSuffix(tail, "\n"))
		}
		for name, value := range outputs {
			if name == driver.ReadinessOutput {
				converging = value == "converging"
				continue
			}
			fb.Attributes[outputAttribute(op, name)] = value
		}
		if err != nil {
			fb.Output = driver.JoinTails(tails, e.opts.MaxOutput)
			return driver.Failed(req, &fb, fmt.Errorf("%s (%s): %w", key, op.Implementation, err))
		}
	}
	fb.Output = driver.JoinTails(tails, e.opts.MaxOutput)
	fb.BackendCode, fb.BackendStatus = state.BackendOK, "ok"
	if len(fb.Attributes) == 0 {
		fb.Attributes = nil
	}
	if req.Action == driver.ActionDelete {
		fb.Attributes, fb.Signals = nil, nil
		fb.BackendStatus = "deleted"
		return driver.Outcome{Feedback: fb, Gone: true}, nil
	}
	if converging {
		fb.BackendStatus = "converging"
		fb.Status = state.Status{Converging: true}
		return driver.Outcome{Feedback: fb, Converging: true}, nil
	}
	fb.Status = state.Status{Active: true}
	return driver.Outcome{Feedback: fb}, nil
}

// Health check outputs with a meaning of their own (the protocol above);
// they are never attributes.
const (
	healthStatusOutput  = "status"
	healthMessageOutput = "message"
)

// health runs the health check op over the recorded feedback fb and
// judges what it reports (the protocol in Driver's documentation).
func (e *Driver) health(ctx context.Context, req driver.Request, op graph.Operation, fb state.Feedback) (driver.Outcome, error) {
	outputs, tail, err := e.runOperation(ctx, req, graph.OpHealthCheck, op)
	if out, ferr, failed := driver.RanCheck(req, &fb, graph.OpHealthCheck, "health check", op, tail, e.opts.MaxOutput, err); failed {
		return out, ferr
	}
	status, message := outputs[healthStatusOutput], outputs[healthMessageOutput]
	// The recorded map is the caller's record's.
	attrs := maps.Clone(fb.Attributes)
	for name, value := range outputs {
		if name == healthStatusOutput || name == healthMessageOutput {
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

// lookup runs the lookup op over the recorded feedback fb and judges
// what it reports (the protocol in Driver's documentation).
func (e *Driver) lookup(ctx context.Context, req driver.Request, op graph.Operation, fb state.Feedback) (driver.Outcome, error) {
	outputs, tail, err := e.runOperation(ctx, req, graph.OpLookup, op)
	if out, ferr, failed := driver.RanCheck(req, &fb, graph.OpLookup, "the lookup", op, tail, e.opts.MaxOutput, err); failed {
		return out, ferr
	}
	values := make(map[string]graph.Value, len(outputs))
	for k, v := range outputs {
		values[k] = v
	}
	return driver.LookupOutcome(req, fb, values, func(name string) string { return outputAttribute(op, name) })
}

// outputAttribute is the attribute an operation's output sets: the one
// its outputs map names, else the output's own name.
func outputAttribute(op graph.Operation, name string) string {
	if a, ok := op.Outputs[name]; ok && a != "" {
		return a
	}
	return name
}

// locate finds the script an implementation names, relative to workDir
// (the working folder when empty) and confined to the root, and returns
// workDir made absolute, where it runs. A script that is missing or
// outside the root is a failure only a change mends (ErrNeedsChange),
// checked here rather than left to the shell's exit status.
func (e *Driver) locate(workDir, impl string) (dir, script string, err error) {
	if workDir == "" {
		workDir = "."
	}
	if dir, err = filepath.Abs(workDir); err != nil {
		return "", "", err
	}
	if script, err = e.implementation(dir, impl); err != nil {
		return "", "", driver.NeedsChange(err)
	}
	if _, err := os.Stat(script); errors.Is(err, fs.ErrNotExist) {
		return "", "", driver.NeedsChange(fmt.Errorf("implementation %s: %w", impl, fs.ErrNotExist))
	}
	return dir, script, nil
}

// runOperation runs one operation and returns the outputs it wrote and the
// tail of what it printed.
func (e *Driver) runOperation(ctx context.Context, req driver.Request, key string, op graph.Operation) (map[string]string, string, error) {
	dir, script, err := e.locate(req.WorkDir, op.Implementation)
	if err != nil {
		return nil, "", err
	}
	argv, err := process.Interpreter(ctx, script)
	if err != nil {
		return nil, "", err
	}
	inputs, err := operationInputs(req, key, op)
	if err != nil {
		return nil, "", err
	}
	outFile, err := os.CreateTemp("", "xosplan-outputs-*")
	if err != nil {
		return nil, "", fmt.Errorf("creating the outputs file: %w", err)
	}
	outPath := outFile.Name()
	_ = outFile.Close()
	defer os.Remove(outPath)

	env := append(os.Environ(), e.opts.Env...)
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			return nil, "", fmt.Errorf("input %q cannot be an environment variable", name)
		}
		s, err := envValue(inputs[name])
		if err != nil {
			return nil, "", fmt.Errorf("input %s: %w", name, err)
		}
		env = append(env, name+"="+s)
	}
	env = append(env,
		"XOSPLAN_ADDRESS="+req.Address,
		"XOSPLAN_OPERATION="+key,
		"XOSPLAN_ACTION="+req.Action,
		"XOSPLAN_OUTPUTS="+outPath,
	)
	if e.opts.StateDir != "" {
		env = append(env, "XOSPLAN_STATE_DIR="+e.opts.StateDir)
	}
	timeout := driver.FirstPositive(op.Timeout, req.Timeout, e.opts.Timeout)
	var output func(string)
	if req.Output != nil {
		output = func(l string) { req.Output(key + ": " + l) }
	}
	res, runErr := process.Process{
		Argv:       argv,
		Dir:        dir,
		Env:        env,
		Timeout:    timeout,
		Grace:      e.opts.KillGrace,
		Output:     output,
		EchoStdout: true,
		MaxTail:    e.opts.MaxOutput,
		Redact:     req.Redactor,
		Started:    req.Started,
	}.Run(ctx)
	outputs, perr := readOutputs(ctx, outPath)
	if runErr != nil {
		return outputs, res.Tail, runErr
	}
	if perr != nil {
		return outputs, res.Tail, perr
	}
	return outputs, res.Tail, nil
}

// ErrImplementationPath is driver.ErrImplementationPath, wrapped by the
// error of an implementation that resolves outside the configuration root
// (driver.Options.Root).
var ErrImplementationPath = driver.ErrImplementationPath

// implementation returns the script an operation names, relative to dir,
// after checking that it resolves (links followed) inside the
// configuration root, driver.Options.Root or else dir itself.
func (e *Driver) implementation(dir, impl string) (string, error) {
	script := impl
	if !filepath.IsAbs(script) {
		script = filepath.Join(dir, filepath.FromSlash(script))
	}
	dirs := e.opts.Root
	if len(dirs) == 0 {
		dirs = []string{dir}
	}
	root, err := userfile.NewRoot(dirs...)
	if err != nil {
		return "", fmt.Errorf("implementation %s: %w", impl, err)
	}
	// A script that does not exist fails as it runs, as it always has; one
	// that does not exist yet is judged by the folders that do.
	if _, err := root.Confine(script); err != nil {
		if errors.Is(err, userfile.ErrOutsideRoot) {
			return "", fmt.Errorf("%s: %w (the configuration root is %s)", impl, ErrImplementationPath, root)
		}
		return "", fmt.Errorf("implementation: %w", err)
	}
	return script, nil
}

// operationInputs returns the inputs of the operation: those the walk
// resolved, else the declared ones, which must then hold no Unknown. On a
// delete an input that cannot be resolved any more (what it read is gone)
// is left out with a note on Output rather than blocking the delete: the
// script decides whether it can do without.
func operationInputs(req driver.Request, key string, op graph.Operation) (map[string]graph.Value, error) {
	if in, ok := req.Inputs[key]; ok {
		return in, nil
	}
	var out map[string]graph.Value
	for _, name := range slices.Sorted(maps.Keys(op.Inputs)) {
		v := op.Inputs[name]
		if graph.HasUnknown(v) {
			if req.Action != driver.ActionDelete {
				return nil, fmt.Errorf("input %s is not resolved (%s)", name, graph.Render(v))
			}
			if req.Output != nil {
				req.Output(fmt.Sprintf("%s: input %s left unset: %s cannot be resolved", key, name, graph.Render(v)))
			}
			continue
		}
		if out == nil {
			out = map[string]graph.Value{}
		}
		out[name] = v
	}
	return out, nil
}

// envValue renders an input for the environment.
func envValue(v graph.Value) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		if strings.ContainsRune(x, 0) {
			return "", errors.New("a NUL byte cannot be passed in the environment")
		}
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case graph.Unknown:
		return "", fmt.Errorf("not resolved (%s)", x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// maxOutputsBytes bounds the outputs file a script writes.
const maxOutputsBytes = 1 << 20

// readOutputs reads an outputs file. A missing file has no outputs. The
// script may have replaced the file: a link is refused (it would make
// xosplan read, and quote in errors, a file the script named), and so is
// anything but a regular file within maxOutputsBytes (a named pipe would
// block the read past every timeout).
func readOutputs(ctx context.Context, path string) (map[string]string, error) {
	data, err := userfile.Read(ctx, path, userfile.Options{NoFollow: true, MaxBytes: maxOutputsBytes})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		var ue *userfile.Error
		if errors.As(err, &ue) {
			err = ue.Unwrap()
			if ue.Detail != "" {
				err = fmt.Errorf("%w (%s)", err, ue.Detail)
			}
		}
		return nil, fmt.Errorf("reading $XOSPLAN_OUTPUTS: %w", err)
	}
	return parseOutputs(data)
}

// parseOutputs parses "name=value" lines and "name<<DELIM" … "DELIM"
// blocks; blank lines are skipped. It returns what it read before the
// first bad line along with the error.
func parseOutputs(data []byte) (map[string]string, error) {
	if len(data) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSuffix(lines[i], "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		eq := strings.IndexByte(l, '=')
		hd := strings.Index(l, "<<")
		switch {
		case hd > 0 && (eq < 0 || hd < eq):
			name, delim := l[:hd], l[hd+2:]
			if delim == "" {
				return out, fmt.Errorf("$XOSPLAN_OUTPUTS line %d: %q has no delimiter after <<", i+1, l)
			}
			var body []string
			j := i + 1
			for ; j < len(lines) && strings.TrimSuffix(lines[j], "\r") != delim; j++ {
				body = append(body, strings.TrimSuffix(lines[j], "\r"))
			}
			if j == len(lines) {
				return out, fmt.Errorf("$XOSPLAN_OUTPUTS line %d: no closing %q for output %s", i+1, delim, name)
			}
			out[name] = strings.Join(body, "\n")
			i = j
		case eq > 0:
			out[l[:eq]] = l[eq+1:]
		default:
			return out, fmt.Errorf("$XOSPLAN_OUTPUTS line %d: expected name=value or name<<DELIMITER, found %q", i+1, driver.Truncate(l, 80))
		}
	}
	return out, nil
}
