package main

import (
	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
)

// graphFlags are the flags of `xosplan graph`.
type graphFlags struct {
	format  string
	inputs  inputFlags
	imports importMapFlags
	root    rootFlag
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
			return runGraph(cmd, c, f, args)
		},
	}
	cmd.Flags().StringVar(&f.format, "format", "dot", "output `FORMAT`: dot or mermaid")
	f.inputs.add(cmd.Flags())
	f.imports.add(cmd.Flags())
	f.imports.addLimits(cmd.Flags())
	f.root.add(cmd.Flags())
	return cmd
}

func runGraph(cmd *cobra.Command, c *cli, f graphFlags, paths []string) error {
	view, err := views.NewGraph(f.format, c.streams())
	if err != nil {
		return usagef(cmd, "--format: %v", err)
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	res, _, diags, err := loadConfig(cmd, c, paths, f.root, f.inputs, f.imports, false)
	if err != nil {
		return err
	}
	g, _, mergeDiags := res.Merge()
	diags = diags.Extend(mergeDiags).Sort()
	if diags.HasErrors() {
		return planFailed(view, diags)
	}
	return view.Graph(g, diags)
}
