package main

import (
	"errors"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/diagview"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// validateFlags are the flags of `xosplan validate`.
type validateFlags struct {
	format  string
	json    bool
	strict  bool
	inputs  inputFlags
	imports importMapFlags
	root    rootFlag
}

func newValidateCommand(c *cli) *cobra.Command {
	var f validateFlags
	cmd := &cobra.Command{
		Use:   "validate [flags] [PATH...]",
		Short: "Check TOSCA templates, XOS recipes and manifests without touching anything",
		Long: `Validate checks files and folders (walked for *.yaml and *.yml; the current folder when none is
given) and reports every problem with its position. Each file's format is detected: TOSCA
templates compile one by one; the manifest files of one folder form one environment. A file of
neither format is an error when named, and a warning when met in a folder walk, which skips it
(the summary counts them).

Required TOSCA inputs without a default are checked only when --inputs or --var give values;
plan always checks them.

Exit status: 0 when valid (warnings allowed unless --strict), 1 on errors or a bad command line.`,
		Example: `  xosplan validate examples/webstack
  xosplan validate --format json template.yaml
  xosplan validate --var db_password=s3cret --inputs prod.yaml stack/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"."}
			}
			return runValidate(cmd, c, f, args)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.format, "format", string(diagview.Text), "output `FORMAT`: text, json (Terraform's validate -json shape), sarif (2.1.0) or github (workflow commands)")
	fs.BoolVar(&f.json, "json", false, "print the JSON diagnostics, as --format json (Terraform's validate -json)")
	fs.BoolVar(&f.strict, "strict", false, "treat warnings as errors (exit 1 when there are any)")
	f.inputs.add(fs)
	f.imports.add(fs)
	f.imports.addLimits(fs)
	f.root.add(fs)
	return cmd
}

func runValidate(cmd *cobra.Command, c *cli, f validateFlags, paths []string) error {
	format, err := diagview.ParseFormat(f.format)
	if err != nil {
		return usagef(cmd, "--format: %v", err)
	}
	if f.json {
		if cmd.Flags().Changed("format") && format != diagview.JSON {
			return usagef(cmd, "%s and --format %s ask for two formats; give one", c.flag("json"), f.format)
		}
		format = diagview.JSON
	}
	view := views.NewValidate(format, f.strict, c.streams())
	res, _, diags, err := loadConfig(cmd, c, paths, f.root, f.inputs, f.imports, true)
	if err != nil {
		return err
	}
	diags = diags.Extend(workflow.DriverDiagnostics(unitGraphs(res), workflow.Drivers(executor.DriverOptions{}))).Sort()
	if err := view.Diagnostics(diags, len(res.Skipped)); err != nil {
		return err
	}
	if cmd.Context().Err() != nil {
		return &exitStatus{code: exitError, err: errors.New("interrupted; the diagnostics above may be incomplete")}
	}
	if !diagview.Valid(diags, f.strict) {
		return exitWith(exitError)
	}
	return nil
}
