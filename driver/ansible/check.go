package ansible

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
)

// ErrRealRun is wrapped by the reason a playbook is not run in check
// mode: it or a file it includes sets check_mode: false on a task, which
// Ansible then runs for real.
var ErrRealRun = errors.New("a task sets check_mode: false and would run for real")

var recapChanged = regexp.MustCompile(`changed=(\d+)`)

// Predict runs the playbook of operation key of req's resource in check
// mode with --diff (as Apply would run it: the same inventory, variables
// and files) and returns the prediction (driver.Predictor): Changed is
// the recap's changed=N. A playbook that sets check_mode: false anywhere
// it (visibly) includes is not run. The run is bounded by the operation's
// timeout, as Apply's.
func (d *Driver) Predict(ctx context.Context, req driver.Request, key string) (driver.Prediction, error) {
	pr := driver.Prediction{Operation: key, Changed: -1}
	if req.Resource == nil {
		return pr, fmt.Errorf("%s: no configured resource to check", req.Address)
	}
	op, ok := req.Resource.Driver.Operations[key]
	if !ok || op.Implementation == "" {
		return pr, fmt.Errorf("%s has no operation %s", req.Address, key)
	}
	playbook := op.Implementation
	if !filepath.IsAbs(playbook) {
		playbook = filepath.Join(req.WorkDir, filepath.FromSlash(playbook))
	}
	root, err := userfile.NewRoot(d.rootDirs(req.WorkDir)...)
	if err != nil {
		return pr, err
	}
	// Only what the run itself may read: the configuration root's files.
	read := func(p string) ([]byte, error) {
		return userfile.Read(ctx, p, userfile.Options{Root: root, MaxBytes: maxPlaybookBytes})
	}
	if ForcesRealRun(ctx, append([]string{playbook}, Includes(ctx, playbook, read)...), read) {
		pr.Skipped = ErrRealRun.Error()
		return pr, nil
	}
	_, tail, err := d.runWith(ctx, req, key, op, []string{"--check", "--diff"})
	pr.Output = tail
	if m := recapChanged.FindAllStringSubmatch(tail, -1); len(m) > 0 {
		pr.Changed, _ = strconv.Atoi(m[len(m)-1][1])
	}
	return pr, err
}

// PredictedOperations returns the operations the action runs
// (driver.Predictor): OperationsFor.
func (d *Driver) PredictedOperations(action string, drv graph.Driver) []string {
	return OperationsFor(action, drv)
}

// IncludedFiles returns the files the playbook impl includes
// (driver.FileLister): Includes.
func (d *Driver) IncludedFiles(ctx context.Context, impl string, read func(path string) ([]byte, error)) []string {
	return Includes(ctx, impl, read)
}

// Missing returns why ansible-playbook cannot run here, nil when it can
// (driver.Prerequisite): Available.
func (d *Driver) Missing() error { return Available() }

// ForcesRealRun reports whether a task of one of files sets check_mode to
// false (false, no, off), which makes Ansible run it for real in check
// mode. A file that cannot be read or parsed is taken to force nothing:
// Check then runs it, and Ansible reports what it cannot check.
func ForcesRealRun(ctx context.Context, files []string, read ReadFunc) bool {
	for _, f := range files {
		data, err := read(f)
		if err != nil {
			continue
		}
		docs, diags := yamlsrc.ParseAllContext(ctx, f, data, yamlsrc.Limits{})
		if diags.HasErrors() {
			continue
		}
		for _, doc := range docs {
			if forcesRealRun(doc, 0) {
				return true
			}
		}
	}
	return false
}

func forcesRealRun(n *yamlsrc.Node, depth int) bool {
	if n == nil || depth > 64 {
		return false
	}
	for _, p := range n.Pairs() {
		if p.Key.Value == "check_mode" {
			if v, ok := p.Value.String(); ok {
				switch strings.ToLower(strings.TrimSpace(v)) {
				case "false", "no", "off", "n", "0":
					return true
				}
			}
		}
		if forcesRealRun(p.Value, depth+1) {
			return true
		}
	}
	for _, it := range n.Items() {
		if forcesRealRun(it, depth+1) {
			return true
		}
	}
	return false
}
