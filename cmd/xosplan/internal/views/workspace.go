package views

import (
	"fmt"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
)

// Workspace is the view of `xosplan workspace` and `xosplan state migrate`.
type Workspace interface {
	// List prints the workspaces, one a line, the selected one marked
	// "*" as Terraform marks it.
	List(names []string, selected string)
	// Created confirms a new workspace.
	Created(name string)
	// Deleted confirms a deleted workspace.
	Deleted(name string)
	// Selected confirms the workspace workspace select recorded.
	Selected(name string)
	// Current prints the name of the workspace commands use (workspace
	// show), alone on its line.
	Current(name string)
	// Migrated confirms a state copied from one backend to another.
	Migrated(from, to string, resources int, serial uint64, lineage string)
}

// NewWorkspace returns the workspace view.
func NewWorkspace(s *Streams) Workspace { return workspaceView{s: s} }

type workspaceView struct{ s *Streams }

func (v workspaceView) List(names []string, selected string) {
	for _, n := range names {
		mark := " "
		if n == selected {
			mark = "*"
		}
		fmt.Fprintf(v.s.Stdout, "%s %s\n", mark, termsafe.String(n))
	}
}

func (v workspaceView) Created(name string) {
	fmt.Fprintf(v.s.Stdout, "Created workspace %q.\n", name)
}

func (v workspaceView) Deleted(name string) {
	fmt.Fprintf(v.s.Stdout, "Deleted workspace %q.\n", name)
}

func (v workspaceView) Selected(name string) {
	fmt.Fprintf(v.s.Stdout, "Switched to workspace %q.\n", name)
}

func (v workspaceView) Current(name string) {
	fmt.Fprintln(v.s.Stdout, termsafe.String(name))
}

func (v workspaceView) Migrated(from, to string, resources int, serial uint64, lineage string) {
	fmt.Fprintf(v.s.Stdout, "Copied %d resource(s) from %s to %s; serial %d, lineage %s kept.\n",
		resources, termsafe.String(from), termsafe.String(to), serial, lineage)
}
