package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// importFlags are the flags of `xosplan import`.
type importFlags struct {
	state      stateFlags
	root       rootFlag
	inputs     inputFlags
	imports    importMapFlags
	scriptRoot string
	timeout    time.Duration
	attrs      []string
	filters    []string
}

func newImportCommand(c *cli) *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "import [flags] ADDRESS {ID | --filter KEY=VALUE...} [PATH...]",
		Short: "Adopt an existing object into the state as a configured resource",
		Long: `Import adopts an object that exists already as the resource ADDRESS of the configuration
(PATHs as plan reads them, the current folder when none is given), as terraform import does:
the resource is recorded as managed, with its configured spec as enacted (as Tonomi adopts a
discovered instance with its component's manifest), so the next plan changes the object only
where the configuration does, and destroy deletes it.

For a scripted component, ID is the instance's natural id within its factory, as the factory's
discovery script reports it (xosplan refresh records those on the factory; xosplan state
discovered lists them). The component's health check must report the instance active or
converging; what it reports is recorded. A component without a health check must be among
its factory's recorded discoveries. An exec or noop resource cannot be asked about: it is
recorded with ID as its instance id and the attributes given with --attr, which is what
resources that depend on it read.

With --filter (repeatable), no ID is given: the object is the one whose fields equal every
KEY=VALUE, as ORC's spec.import.filter finds one. A resource with a lookup operation
(xosplan.interfaces.Lookup) runs it with the filter as its keys (XOSPLAN_LOOKUP) and keeps the
objects it reports that match; a scripted component looks among its factory's recorded
discoveries (fields name and status). Exactly one must match: none or several are refused,
listing what was found. A filter never names an ID field (id, uuid, instance_id): give the ID
instead. The object's id and, for an exec or noop resource, its other fields (as attributes)
are recorded.

ADDRESS must be configured and not yet recorded, managed, and not a factory; values the
resource reads from others must be recorded (apply or import those first). The state lock is
held throughout; nothing is recorded when the object cannot be confirmed.`,
		Example: `  xosplan state discovered 'VM Factory.factory'
  xosplan import VM.vm i-0123456789 examples/petclinic
  xosplan import --attr ip=10.0.0.5 --var db_password=… db db-42 stack/
  xosplan import --filter name=orders db stack/`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(f.filters) > 0 && len(args) < 1:
				return usagef(cmd, "import --filter needs the ADDRESS of the resource to adopt the object as")
			case len(f.filters) == 0 && len(args) < 2:
				return usagef(cmd, "import needs an ADDRESS and the ID of the object to adopt (or --filter KEY=VALUE to find it)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(f.filters) > 0 {
				return runImport(cmd, c, f, args[0], "", args[1:])
			}
			return runImport(cmd, c, f, args[0], args[1], args[2:])
		},
	}
	fs := cmd.Flags()
	f.state.add(fs)
	f.root.add(fs)
	f.inputs.add(fs)
	f.imports.add(fs)
	f.imports.addLimits(fs)
	addScriptRoot(fs, &f.scriptRoot)
	fs.DurationVar(&f.timeout, "timeout", 0, "bound the health check (`DURATION`; default 10m)")
	fs.StringArrayVar(&f.filters, "filter", nil, "adopt the one object whose field KEY equals VALUE (`KEY=VALUE`; repeatable; never an ID field)")
	fs.StringArrayVar(&f.attrs, "attr", nil, "record the attribute `NAME=VALUE` of an exec or noop resource (VALUE read as a YAML scalar; repeatable)")
	return cmd
}

func runImport(cmd *cobra.Command, c *cli, f importFlags, addr, id string, paths []string) error {
	ctx := cmd.Context()
	attrs, err := assignments("--attr", f.attrs)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	if len(attrs) == 0 {
		attrs = nil
	}
	filter, err := assignments("--filter", f.filters)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	if len(filter) > 0 {
		if err := executor.CheckFilter(filter); err != nil {
			return usagef(cmd, "--filter: %v", err)
		}
		if len(attrs) > 0 {
			return usagef(cmd, "--attr and --filter do not go together: the object found by the filter reports its own attributes")
		}
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	view := views.NewImport(c.streams())
	res, root, diags, err := loadConfig(cmd, c, paths, f.root, f.inputs, f.imports, true)
	if err != nil {
		return err
	}
	desired, _, mergeDiags := res.Merge()
	if diags = diags.Extend(mergeDiags).Sort(); diags.HasErrors() {
		return planFailed(view, diags)
	}
	if err := view.Diagnostics(diags); err != nil {
		return err
	}
	scriptRoot := f.scriptRoot
	if scriptRoot == "" {
		scriptRoot = workflow.DefaultScriptRoot(res.ManifestFolders())
	}

	backend, held, cur, err := f.state.lockAndRead(ctx, c, "import")
	if err != nil {
		return err
	}
	defer backend.Close()
	defer held.Unlock()
	execRoot, err := f.root.executorRoot(c, root, cur)
	if err != nil {
		return err
	}
	reg := workflow.Drivers(executor.DriverOptions{ScriptRoot: scriptRoot, Root: execRoot, Timeout: f.timeout, StateDir: workflow.ScriptStateDir(backend)})
	wd, _ := os.Getwd()
	opts := executor.ImportOptions{ScriptRoot: scriptRoot, WorkDir: wd, Timeout: f.timeout, Attributes: attrs}
	var rec *state.Resource
	if len(filter) > 0 {
		view.Finding(addr, driver.KeysText(filter))
		rec, err = executor.ImportByFilter(ctx, desired, cur, addr, filter, reg, opts)
		if err == nil {
			id = rec.Feedback.InstanceID
		}
	} else {
		view.Importing(addr, id)
		rec, err = executor.Import(ctx, desired, cur, addr, id, reg, opts)
	}
	if err != nil {
		return err
	}
	// The factory's discovery no longer reports it as unmanaged.
	executor.RecordImport(cur, rec, id)
	if err := backend.Write(ctx, cur); err != nil {
		return fmt.Errorf("recording the import: %w", err)
	}
	return view.Imported(rec)
}
