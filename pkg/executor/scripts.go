package executor

import (
	"path/filepath"
	"slices"

	"github.com/xosplan/xosplan/pkg/graph"
)

// ScriptFiles returns the files the drivers would run for the configured
// resource r, as they find them: an exec implementation under the folder
// of r's source file (the working folder when r has none), a scripted
// component's scripts under scriptRoot. Each file is listed once, sorted.
// A script the driver would refuse (outside its root, missing, no root
// given) is left out: running it fails anyway. A plan digests these files
// so that apply refuses it when a script changed since.
func ScriptFiles(r *graph.Resource, scriptRoot string) []string {
	var out []string
	for _, op := range r.Driver.Operations {
		if op.Implementation == "" {
			continue
		}
		switch r.Driver.Name {
		case graph.DriverExec:
			p := filepath.FromSlash(op.Implementation)
			if !filepath.IsAbs(p) {
				dir := "."
				if r.Range.File != "" {
					dir = filepath.Dir(r.Range.File)
				}
				p = filepath.Join(dir, p)
			}
			out = append(out, p)
		case graph.DriverScripted:
			if p, err := resolveScript(scriptRoot, op.Implementation); err == nil {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
