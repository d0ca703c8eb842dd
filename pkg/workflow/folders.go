package workflow

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/state"
)

// DefaultScriptRoot is the "scripts" folder beside the first manifest
// folder that has one (absolute when it can be): examples/petclinic keeps
// /vm/launch.py as scripts/vm/launch.py. "" when none has one.
func DefaultScriptRoot(dirs []string) string {
	for _, d := range dirs {
		root := filepath.Join(d, "scripts")
		if fi, err := os.Stat(root); err == nil && fi.IsDir() {
			if abs, err := filepath.Abs(root); err == nil {
				return abs
			}
			return root
		}
	}
	return ""
}

// ExecutorRoot returns the folders the exec driver confines
// implementations to (executor.DriverOptions.Root): those of root (the
// configuration root, when the command has one), and the repositories
// (else the folders) of the work folders prior records, where a destroy
// run without configuration finds each resource's scripts: the state is
// the user's own file. nil when neither gives a folder: each resource's
// own folder.
func ExecutorRoot(root *config.Root, prior *state.State) ([]string, error) {
	var recorded []string
	if prior != nil {
		for _, r := range prior.Resources {
			if d, ok := r.Feedback.Extra[executor.ExtraWorkDir].(string); ok && d != "" {
				recorded = append(recorded, d)
			}
		}
	}
	var dirs []string
	if root != nil {
		dirs = root.ResolvedDirs()
	}
	if len(recorded) > 0 {
		found, err := FindRoot(recorded)
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, found.ResolvedDirs()...)
	}
	return dirs, nil
}

// FindRoot returns the default configuration root of paths, found from
// the working folder (config.FindRoot): the repository holding them, else
// the working folder when it holds them, else each one's folder.
func FindRoot(paths []string) (*config.Root, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("finding the configuration root: %w", err)
	}
	r, err := config.FindRoot(wd, paths)
	if err != nil {
		return nil, fmt.Errorf("finding the configuration root: %w", err)
	}
	return r, nil
}

// ScriptStateDir is the folder scripts may keep private state in
// (XOSPLAN_STATE_DIR): ".xosplan" beside the state file, as Terraform
// keeps ".terraform", or in the working folder when the state is in a
// database. It is created when missing; when it cannot be, scripts get no
// such folder ("") rather than the apply failing.
func ScriptStateDir(backend state.Store) string {
	dir := ".xosplan"
	if f, ok := backend.(*state.File); ok {
		dir = filepath.Join(filepath.Dir(f.Path()), ".xosplan")
	} else if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	return dir
}

// StateIdentity is the identity of backend as a plan records it: a state
// file's path relative to the working folder when it lies under it (as
// the plan's configuration paths are), so that a plan file does not
// depend on where the checkout is.
func StateIdentity(backend state.Store) state.Identity {
	id := backend.Identity()
	if id.Path == "" {
		return id
	}
	if wd, err := os.Getwd(); err == nil {
		if resolved, err := filepath.EvalSymlinks(wd); err == nil {
			wd = resolved
		}
		if rel, err := filepath.Rel(wd, id.Path); err == nil && filepath.IsLocal(rel) {
			id.Path = filepath.ToSlash(rel)
		}
	}
	return id
}
