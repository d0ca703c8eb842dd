package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// outputFlags are the flags of `xosplan output`.
type outputFlags struct {
	state         stateFlags
	json          bool
	raw           bool
	showSensitive bool
}

func newOutputCommand(c *cli) *cobra.Command {
	var f outputFlags
	cmd := &cobra.Command{
		Use:   "output [flags] [NAME]",
		Short: "Print the outputs the last successful apply recorded",
		Long: `Output prints the configuration's outputs as the last successful apply recorded them in the
state: every output as "name = value" (values as JSON), or the value of the output NAME.
A sensitive output reads "(sensitive value)", and NAME of a sensitive one is refused, unless
--show-sensitive is given.

--json prints {"NAME": {"sensitive", "type", "value"}} as terraform output -json does (a
masked sensitive output is {"sensitive": true}), or NAME's value alone. --raw prints NAME's
value as it is, without quotes or a newline, for a shell to capture: a string, number or
boolean; a list, map or null is refused (use --json).

Exit status: 0 success (also when there are no outputs), 1 error (no such output).`,
		Example: `  xosplan output
  xosplan output --json | jq -r .shop_url.value
  curl "$(xosplan output --raw shop_url)"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef(cmd, "output takes at most one output NAME, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOutput(cmd, c, f, args)
		},
	}
	fs := cmd.Flags()
	f.state.addRead(fs)
	fs.BoolVar(&f.json, "json", false, "print JSON, as terraform output -json does")
	fs.BoolVar(&f.raw, "raw", false, "print the value of one string, number or boolean output as it is")
	fs.BoolVar(&f.showSensitive, "show-sensitive", false, "print sensitive values instead of masking them")
	return cmd
}

func runOutput(cmd *cobra.Command, c *cli, f outputFlags, args []string) error {
	format := "text"
	switch {
	case f.json && f.raw:
		return usagef(cmd, "--json and --raw cannot be used together")
	case f.raw && len(args) == 0:
		return usagef(cmd, "--raw prints one output: give its NAME")
	case f.json:
		format = "json"
	case f.raw:
		format = "raw"
	}
	backend, err := f.state.open(cmd.Context(), c)
	if err != nil {
		return err
	}
	defer backend.Close()
	st, err := backend.Read(cmd.Context())
	if err != nil {
		return err
	}
	view := views.NewOutput(format, c.streams())
	if len(args) == 0 {
		return view.All(st.Outputs, f.showSensitive)
	}
	name := args[0]
	o, ok := st.Outputs[name]
	switch {
	case !ok:
		return fmt.Errorf("output %q not found: the state records %s", name, recordedOutputs(st.Outputs))
	case o.Sensitive && !f.showSensitive:
		return fmt.Errorf("output %q is sensitive: add --show-sensitive to print its value", name)
	case f.raw:
		if err := rawPrintable(name, o.Value); err != nil {
			return err
		}
	}
	return view.One(o, f.showSensitive)
}

// rawPrintable refuses, as terraform output -raw does, a value that has no
// single text form.
func rawPrintable(name string, v graph.Value) error {
	switch v.(type) {
	case string, int64, float64, bool:
		return nil
	case nil:
		return fmt.Errorf("output %q is null: --raw prints only a string, number or boolean", name)
	case []graph.Value:
		return fmt.Errorf("output %q is a list: --raw prints only a string, number or boolean; use --json", name)
	case map[string]graph.Value:
		return fmt.Errorf("output %q is a map: --raw prints only a string, number or boolean; use --json", name)
	}
	return errors.New("output " + name + ": --raw prints only a string, number or boolean")
}

// recordedOutputs names the outputs a state records, for the error about
// one it does not.
func recordedOutputs(outs map[string]state.Output) string {
	if len(outs) == 0 {
		return "no outputs (a successful apply records them)"
	}
	names := make([]string, 0, len(outs))
	for n := range outs {
		names = append(names, fmt.Sprintf("%q", n))
	}
	slices.Sort(names)
	return "only " + strings.Join(names, ", ")
}
