package ansible

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/graph"
)

// maxPlaybookBytes bounds a playbook or a dependency the driver copies.
const maxPlaybookBytes = 16 << 20

// runDirPrefix starts the name of every run folder, followed by the id of
// the xosplan process that made it and a random part
// ("xosplan-ansible-4242-123456"), so that a later run can tell the
// folders a killed process left (sweepStale).
const runDirPrefix = "xosplan-ansible-"

// runDir is the private folder of one ansible-playbook run (0700, removed
// after): run/ is its working folder, laid out as xOpera lays out its
// own: the playbook, each dependency and each of the node's artifacts by
// its base name, and beside them
// links to everything else in the playbook's folder, so that roles,
// task files and templates it names by relative paths resolve as they do
// where the playbook is written, then to what else the template's folder
// holds, so that a path relative to the template (get_artifact's)
// resolves too. priv/ holds the inventory, the
// variables (0600: they may hold secrets, which is why they never go on
// the command line) and the callback plugin.
type runDir struct {
	root, run, priv string
	playbook        string // in run/
}

// newRunDir lays out a run of playbook with dependencies and the node's
// artifacts (absolute paths, already confined to the configuration root)
// for a template in workDir.
func newRunDir(ctx context.Context, playbook string, dependencies, artifacts []string, workDir string) (_ *runDir, err error) {
	root, err := os.MkdirTemp("", runDirPrefix+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, fmt.Errorf("creating the run folder: %w", err)
	}
	d := &runDir{root: root, run: filepath.Join(root, "run"), priv: filepath.Join(root, "priv")}
	defer func() {
		if err != nil {
			d.remove()
		}
	}()
	for _, dir := range []string{d.run, d.priv, filepath.Join(d.priv, "plugins"), filepath.Join(d.priv, "tmp")} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			return nil, fmt.Errorf("creating the run folder: %w", err)
		}
	}
	placed := map[string]bool{}
	d.playbook = filepath.Join(d.run, filepath.Base(playbook))
	if err := copyFile(ctx, playbook, d.playbook); err != nil {
		return nil, err
	}
	placed[filepath.Base(playbook)] = true
	for _, dep := range dependencies {
		name := filepath.Base(dep)
		if placed[name] {
			return nil, fmt.Errorf("dependency %s: another file of the operation has the name %s (xOpera puts them all in one folder, by name)", dep, name)
		}
		placed[name] = true
		fi, err := os.Stat(dep)
		if err != nil {
			return nil, fmt.Errorf("dependency: %w", err)
		}
		if fi.IsDir() {
			err = os.Symlink(dep, filepath.Join(d.run, name))
		} else {
			err = copyFile(ctx, dep, filepath.Join(d.run, name))
		}
		if err != nil {
			return nil, fmt.Errorf("dependency %s: %w", dep, err)
		}
	}
	// The node's artifacts by name too, as xOpera puts them (linked: an
	// artifact may be large), unless an operation file has the name.
	for _, a := range artifacts {
		if name := filepath.Base(a); !placed[name] {
			placed[name] = true
			if err := os.Symlink(a, filepath.Join(d.run, name)); err != nil {
				return nil, fmt.Errorf("linking the artifact %s: %w", a, err)
			}
		}
	}
	// The playbook's folder first, then the template's (where paths
	// relative to the template, such as get_artifact's, start).
	for _, dir := range []string{filepath.Dir(playbook), workDir} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("reading the folder %s: %w", dir, err)
		}
		for _, e := range entries {
			if placed[e.Name()] {
				continue
			}
			placed[e.Name()] = true
			if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(d.run, e.Name())); err != nil {
				return nil, fmt.Errorf("linking %s: %w", e.Name(), err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(d.priv, "plugins", "xosplan_stats.py"), []byte(statsPlugin), 0o600); err != nil {
		return nil, fmt.Errorf("writing the callback plugin: %w", err)
	}
	return d, nil
}

// copyFile copies a regular file of at most maxPlaybookBytes, private.
func copyFile(ctx context.Context, from, to string) error {
	data, err := userfile.Read(ctx, from, userfile.Options{MaxBytes: maxPlaybookBytes})
	if err != nil {
		return fmt.Errorf("reading %s: %w", from, err)
	}
	return os.WriteFile(to, data, 0o600)
}

func (d *runDir) inventory() string { return filepath.Join(d.priv, "inventory.json") }
func (d *runDir) vars() string      { return filepath.Join(d.priv, "vars.json") }
func (d *runDir) stats() string     { return filepath.Join(d.priv, "stats.json") }

// remove deletes the run folder, secrets first.
func (d *runDir) remove() {
	_ = os.Remove(d.vars())
	_ = os.RemoveAll(d.root)
}

// writeVars writes the extra variables of a run, 0600, as JSON (which
// Ansible reads as YAML).
func writeVars(path string, vars map[string]graph.Value) error {
	if vars == nil {
		vars = map[string]graph.Value{}
	}
	data, err := json.Marshal(vars)
	if err != nil {
		return fmt.Errorf("writing the variables: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("writing the variables: %w", err)
	}
	_, err = f.Write(data)
	return errors.Join(err, f.Close())
}

// Vars returns the extra variables of an operation: its inputs, without
// graph.InputAnsibleHost and graph.InputAnsibleRelationship. A name Ansible cannot take as a variable (not
// a Python identifier) is an error, as it would be in xOpera.
func Vars(inputs map[string]graph.Value) (map[string]graph.Value, error) {
	out := make(map[string]graph.Value, len(inputs))
	for name, v := range inputs {
		if name == graph.InputAnsibleHost || name == graph.InputAnsibleRelationship {
			continue
		}
		if !validVarName(name) {
			return nil, fmt.Errorf("input %q cannot be an Ansible variable (letters, digits and _, not starting with a digit)", name)
		}
		if graph.HasUnknown(v) {
			return nil, fmt.Errorf("input %s is not resolved (%s)", name, graph.Render(v))
		}
		out[name] = v
	}
	return out, nil
}

func validVarName(s string) bool {
	if s == "" || strings.ContainsAny(s[:1], "0123456789") {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// readStats reads what the callback plugin wrote; a run that wrote
// nothing has no outputs. A link or anything but a regular file within
// 1 MiB is refused.
func readStats(ctx context.Context, path string) (map[string]graph.Value, error) {
	data, err := userfile.Read(ctx, path, userfile.Options{NoFollow: true, MaxBytes: 1 << 20})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the set_stats data: %w", err)
	}
	return ParseStats(data)
}
