package ansible

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// Bounds of Includes: the files it returns, and how deep includes nest.
const (
	maxIncludedFiles = 1000
	maxIncludeDepth  = 16
)

// ReadFunc reads a file for Includes; it refuses (with an error) what
// xosplan may not read: a file outside the configuration root, too large,
// not a regular file.
type ReadFunc func(path string) ([]byte, error)

// Includes returns, sorted, the files a playbook uses by a relative path
// that read can read, beside the playbook itself: playbooks it imports
// (import_playbook), task and variable files (include_tasks,
// import_tasks, include_vars, vars_files), the files of the roles it
// names (roles:, include_role, import_role) under roles/ beside the
// playbook, and the sources of template and copy tasks (beside the file
// that names them, or in its templates/ or files/ folder), followed
// through what they include in turn. A path with a Jinja expression
// ("{{") is not followed: only running the playbook knows it. The plan's
// digest of an operation covers these files, so that a change to one is
// implementation_changed. At most maxIncludedFiles files, maxIncludeDepth
// levels; what cannot be read or parsed is left out.
func Includes(ctx context.Context, playbook string, read ReadFunc) []string {
	in := &includer{ctx: ctx, read: read, seen: map[string]bool{filepath.Clean(playbook): true}}
	in.yamlFile(filepath.Clean(playbook), 0, in.playbook)
	slices.Sort(in.files)
	return in.files
}

type includer struct {
	ctx   context.Context
	read  ReadFunc
	seen  map[string]bool
	files []string
}

// add records a file, once; it reports whether the file is new and
// readable, and returns its content.
func (in *includer) add(path string) ([]byte, bool) {
	path = filepath.Clean(path)
	if in.seen[path] || len(in.files) >= maxIncludedFiles || in.ctx.Err() != nil {
		return nil, false
	}
	in.seen[path] = true
	data, err := in.read(path)
	if err != nil {
		return nil, false
	}
	in.files = append(in.files, path)
	return data, true
}

// yamlFile parses the file at path (added already, or the playbook) and
// hands its document to walk.
func (in *includer) yamlFile(path string, depth int, walk func(dir string, n *yamlsrc.Node, depth int)) {
	var data []byte
	if depth == 0 {
		d, err := in.read(path)
		if err != nil {
			return
		}
		data = d
	} else {
		d, ok := in.add(path)
		if !ok {
			return
		}
		data = d
	}
	if depth > maxIncludeDepth {
		return
	}
	doc, diags := yamlsrc.ParseContext(in.ctx, path, data, yamlsrc.Limits{})
	if doc == nil || diags.HasErrors() {
		return
	}
	walk(filepath.Dir(path), doc, depth)
}

// playbook walks a playbook: a list of plays and import_playbook items.
func (in *includer) playbook(dir string, doc *yamlsrc.Node, depth int) {
	for _, play := range doc.Items() {
		if p := relPath(play.Get("import_playbook")); p != "" {
			in.yamlFile(filepath.Join(dir, p), depth+1, in.playbook)
		}
		if p := relPath(play.Get("ansible.builtin.import_playbook")); p != "" {
			in.yamlFile(filepath.Join(dir, p), depth+1, in.playbook)
		}
		for _, f := range play.Get("vars_files").Items() {
			if p := relPath(f); p != "" {
				in.add(filepath.Join(dir, p))
			}
		}
		for _, r := range play.Get("roles").Items() {
			name := relPath(r)
			if r.Kind == yamlsrc.Mapping {
				name = relPath(r.Get("role"))
				if name == "" {
					name = relPath(r.Get("name"))
				}
			}
			in.role(dir, name)
		}
		for _, sec := range []string{"pre_tasks", "tasks", "post_tasks", "handlers"} {
			in.tasks(dir, play.Get(sec), depth)
		}
	}
}

// tasks walks a list of tasks written in a file of folder dir.
func (in *includer) tasks(dir string, list *yamlsrc.Node, depth int) {
	for _, t := range list.Items() {
		if t.Kind != yamlsrc.Mapping {
			continue
		}
		for _, sec := range []string{"block", "rescue", "always"} {
			in.tasks(dir, t.Get(sec), depth)
		}
		for _, p := range t.Pairs() {
			module := strings.TrimPrefix(p.Key.Value, "ansible.builtin.")
			switch module {
			case "include_tasks", "import_tasks", "include":
				if f := fileArg(p.Value, "file"); f != "" {
					in.yamlFile(filepath.Join(dir, f), depth+1, func(d string, n *yamlsrc.Node, depth int) { in.tasks(d, n, depth) })
				}
			case "include_vars":
				if f := fileArg(p.Value, "file"); f != "" {
					in.add(filepath.Join(dir, f))
					in.add(filepath.Join(dir, "vars", f))
				}
			case "include_role", "import_role":
				in.role(dir, relPath(p.Value.Get("name")))
				in.role(filepath.Dir(dir), relPath(p.Value.Get("name")))
			case "template", "copy":
				if f := fileArg(p.Value, "src"); f != "" {
					sub := "files"
					if module == "template" {
						sub = "templates"
					}
					in.add(filepath.Join(dir, f))
					in.add(filepath.Join(dir, sub, f))
					in.add(filepath.Join(filepath.Dir(dir), sub, f))
				}
			}
		}
	}
}

// role adds every regular file under dir/roles/name.
func (in *includer) role(dir, name string) {
	if name == "" || strings.ContainsAny(name, "/\\") {
		return
	}
	root := filepath.Join(dir, "roles", name)
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || in.ctx.Err() != nil || len(in.files) >= maxIncludedFiles {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			in.add(path)
		}
		return nil
	})
}

// relPath is a scalar's text when it is a relative path without a Jinja
// expression, else "".
func relPath(n *yamlsrc.Node) string {
	s, ok := n.String()
	if !ok {
		return ""
	}
	s = strings.TrimSpace(s)
	if s == "" || strings.Contains(s, "{{") || strings.Contains(s, "{%") || filepath.IsAbs(s) {
		return ""
	}
	return filepath.FromSlash(s)
}

// fileArg is a module's file argument: the scalar itself (include_tasks:
// x.yml), key of a map (include_tasks: {file: x.yml}), or key=value in
// the free-form string (template: src=a.j2 dest=/b).
func fileArg(n *yamlsrc.Node, key string) string {
	if n == nil {
		return ""
	}
	if n.Kind == yamlsrc.Mapping {
		return relPath(n.Get(key))
	}
	s, ok := n.String()
	if !ok {
		return ""
	}
	if !strings.Contains(s, "=") {
		if key == "src" {
			return ""
		}
		return relPath(n)
	}
	for _, f := range strings.Fields(s) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return relPath(&yamlsrc.Node{Kind: yamlsrc.Scalar, Value: strings.Trim(v, `"'`)})
		}
	}
	return ""
}
