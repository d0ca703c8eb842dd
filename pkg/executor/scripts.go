package executor

import (
	"path/filepath"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
)

// OperationFiles returns the files op of the configured resource r runs,
// as the driver finds them: its implementation, then its dependencies in
// order; for exec and ansible, under the folder of r's source file (the working
// folder when r has none); for a scripted component, under scriptRoot.
// complete is false when some file named is left out because the driver
// would refuse it (outside its root, missing, no root given): running it
// fails anyway. An operation without an implementation runs nothing. A
// plan digests these files, so that apply refuses it when one changed
// since, and the operation's digest is compared with the one enacted.
func OperationFiles(r *graph.Resource, op graph.Operation, scriptRoot string) (files []string, complete bool) {
	if op.Implementation == "" {
		return nil, true
	}
	complete = true
	for _, name := range append([]string{op.Implementation}, op.Dependencies...) {
		switch r.Driver.Name {
		case graph.DriverExec, graph.DriverAnsible:
			p := filepath.FromSlash(name)
			if !filepath.IsAbs(p) {
				dir := "."
				if r.Range.File != "" {
					dir = filepath.Dir(r.Range.File)
				}
				p = filepath.Join(dir, p)
			}
			files = append(files, p)
		case graph.DriverScripted:
			if p, err := driver.ResolveScript(scriptRoot, name); err == nil {
				files = append(files, p)
			} else {
				complete = false
			}
		default:
			complete = false
		}
	}
	return files, complete
}
