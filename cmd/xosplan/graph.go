package main

import (
	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/planview"
	"github.com/xosplan/xosplan/pkg/config"
)

// graphFlags are the flags of `xosplan graph`.
type graphFlags struct {
	format string
	inputs inputFlags
	root   rootFlag
}

func newGraphCommand(c *cli) *cobra.Command {
	var f graphFlags
	cmd := &cobra.Command{
		Use:   "graph [flags] [PATH...]",
		Short: "Print the dependency graph as DOT or Mermaid",
		Long: `Graph compiles the configuration (the current folder when no path is given) and prints its
resources and dependencies: Graphviz DOT by default, or a Mermaid flowchart, which GitHub
renders in markdown. An arrow points from a resource to what it depends on. The output is
sorted, so it only changes when the graph does.`,
		Example: `  xosplan graph stack/ | dot -Tsvg > graph.svg
  xosplan graph --format mermaid stack/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.format != "dot" && f.format != "mermaid" {
				return usagef(cmd, "--format: want dot or mermaid, got %q", f.format)
			}
			if len(args) == 0 {
				args = []string{"."}
			}
			root, err := f.root.root(c, args)
			if err != nil {
				return usagef(cmd, "%v", err)
			}
			inputs, diags, err := f.inputs.values(cmd.Context(), c)
			if err != nil {
				return usagef(cmd, "%v", err)
			}
			res := config.Load(cmd.Context(), args, config.Options{Inputs: inputs, InputsFile: f.inputs.file, Root: root})
			g, _, mergeDiags := res.Merge()
			diags = diags.Extend(res.Diags, mergeDiags).Sort()
			if diags.HasErrors() {
				return planFailed(c, nil, diags)
			}
			if len(diags) > 0 {
				if err := renderDiagnosticsTo(c, c.stderr, diags); err != nil {
					return err
				}
			}
			if f.format == "mermaid" {
				return planview.Mermaid(c.stdout, g)
			}
			return planview.DOT(c.stdout, g)
		},
	}
	cmd.Flags().StringVar(&f.format, "format", "dot", "output `FORMAT`: dot or mermaid")
	f.inputs.add(cmd.Flags())
	f.root.add(cmd.Flags())
	return cmd
}
