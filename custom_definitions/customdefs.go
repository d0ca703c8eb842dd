package customdefs

import (
	"embed"
	"io/fs"
	"path"
	"sort"
)

// files is read-only: embed.FS cannot be changed at run time.
//
//go:embed *.yaml
var files embed.FS

// Lookup returns an embedded XOS custom type file by base name ("slice.yaml",
// "site.yaml" …) for an import like `custom_types/slice.yaml` that is not on
// disk. Only the base name is matched: a name with a directory part, or one
// that is not an embedded file, gives ok false. data is a fresh copy.
func Lookup(name string) (data []byte, ok bool) {
	if name == "" || path.Base(name) != name || name == "." || name == ".." {
		return nil, false
	}
	b, err := files.ReadFile(name)
	if err != nil {
		return nil, false
	}
	return b, true
}

// Names lists the embedded file names, sorted.
func Names() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		// The embedded root always exists; an error here cannot happen.
		return nil
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}
