package main

import (
	"errors"
	"os"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/diagview"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
)

// validateFlags are the flags of `xosplan validate`.
type validateFlags struct {
	format string
	strict bool
	inputs inputFlags
	root   rootFlag
}

func newValidateCommand(c *cli) *cobra.Command {
	var f validateFlags
	cmd := &cobra.Command{
		Use:   "validate [flags] PATH...",
		Short: "Check TOSCA templates, XOS recipes and manifests without touching anything",
		Long: `Validate checks files and folders (walked for *.yaml and *.yml) and reports every problem
with its position. Each file's format is detected: TOSCA templates compile one by one; the
manifest files of one folder form one environment. A file of neither format is a warning.

Required TOSCA inputs without a default are checked only when --inputs or --var give values;
plan always checks them.

Exit status: 0 when valid (warnings allowed unless --strict), 1 on errors or a bad command line.`,
		Example: `  xosplan validate examples/webstack
  xosplan validate --format json template.yaml
  xosplan validate --var db_password=s3cret --inputs prod.yaml stack/`,
		Args: minArgs(1, "PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runValidate(cmd, c, f, args)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.format, "format", string(diagview.Text), "output `FORMAT`: text, json (Terraform's validate -json shape), sarif (2.1.0) or github (workflow commands)")
	fs.BoolVar(&f.strict, "strict", false, "treat warnings as errors (exit 1 when there are any)")
	f.inputs.add(fs)
	f.root.add(fs)
	return cmd
}

func runValidate(cmd *cobra.Command, c *cli, f validateFlags, paths []string) error {
	format, err := diagview.ParseFormat(f.format)
	if err != nil {
		return usagef(cmd, "--format: %v", err)
	}
	root, err := f.root.root(c, paths)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	inputs, diags, err := f.inputs.values(cmd.Context(), c)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	res := config.Load(cmd.Context(), paths, config.Options{Inputs: inputs, RequireInputs: inputs != nil, InputsFile: f.inputs.file, Root: root})
	diags = diags.Extend(res.Diags).Sort()
	if err := renderDiagnostics(c, format, diags, f.strict); err != nil {
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

// renderDiagnostics writes diagnostics to stdout in format, with snippets
// read from the files they name.
func renderDiagnostics(c *cli, format diagview.Format, diags diag.Diagnostics, strict bool) error {
	wd, _ := os.Getwd()
	return diagview.Render(c.stdout, format, diags, diagview.Options{
		Color:       c.useColor(c.stdout),
		Strict:      strict,
		Sources:     c.sources.get,
		ToolVersion: version(),
		BaseDir:     wd,
	})
}
