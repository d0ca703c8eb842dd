package lsp

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/xosplan/xosplan/pkg/config"
)

// The workspace confines what a document's compile reads. The client
// announces its workspace folders at initialize (workspaceFolders, else
// rootUri, else rootPath) and their changes after
// (workspace/didChangeWorkspaceFolders). A document inside a folder is
// compiled with the root config.FindRoot gives it (the repository holding
// it) when that lies inside the folder, else the folder: never beyond
// it. A document outside every folder is compiled from its own text
// alone: nothing beside it is read, from disk or from the other buffers,
// and its imports of local files are refused as outside the root. A
// client that announces no folder at all (a single file opened without a
// project) keeps config.CompileDocument's own root, the repository or
// folder of the document; Options.Root, when set, confines every
// document.

// setFolders records the workspace folders of an initialize request.
func (s *server) setFolders(p *protocol.InitializeParams) {
	var folders []string
	add := func(uri string) {
		if path, ok := pathOf(uri); ok && !slices.Contains(folders, path) {
			folders = append(folders, path)
		}
	}
	switch {
	case p.WorkspaceFolders != nil:
		for _, f := range p.WorkspaceFolders {
			add(f.URI)
		}
	case p.RootURI != nil:
		add(*p.RootURI)
	case p.RootPath != nil && filepath.IsAbs(*p.RootPath):
		folders = append(folders, filepath.Clean(*p.RootPath))
	}
	s.mu.Lock()
	s.folders, s.announced = folders, p.WorkspaceFolders != nil || p.RootURI != nil || p.RootPath != nil
	s.mu.Unlock()
}

// didChangeFolders applies a change of the workspace folders and compiles
// every open document again: what each may read has changed.
func (s *server) didChangeFolders(_ *glsp.Context, p *protocol.DidChangeWorkspaceFoldersParams) error {
	s.mu.Lock()
	for _, f := range p.Event.Removed {
		if path, ok := pathOf(f.URI); ok {
			s.folders = slices.DeleteFunc(s.folders, func(d string) bool { return d == path })
		}
	}
	for _, f := range p.Event.Added {
		if path, ok := pathOf(f.URI); ok && !slices.Contains(s.folders, path) {
			s.folders = append(s.folders, path)
		}
	}
	s.announced = true
	open := make([]string, 0, len(s.docs))
	for path := range s.docs {
		open = append(open, path)
	}
	s.mu.Unlock()
	for _, path := range open {
		s.schedule(path)
	}
	return nil
}

// confinement is how one document is compiled: under root (nil:
// CompileDocument's own), with the buffers inside it, or alone.
type confinement struct {
	root  *config.Root
	alone bool
}

// confine decides the confinement of the document at path (see above).
// folders are the workspace folders; announced says whether the client
// announced any (even none).
func (s *server) confine(path string, folders []string, announced bool) confinement {
	if s.opts.Root != nil {
		return confinement{root: s.opts.Root}
	}
	if !announced {
		return confinement{}
	}
	folder := ""
	for _, f := range folders {
		if within(f, path) && len(f) > len(folder) {
			folder = f
		}
	}
	if folder == "" {
		return confinement{alone: true}
	}
	dir := filepath.Dir(path)
	if r, err := config.FindRoot(dir, []string{dir}); err == nil && allWithin(folder, r.Dirs()) {
		return confinement{root: r}
	}
	r, err := config.NewRoot(folder)
	if err != nil {
		// The folder is gone: nothing of it can be read.
		return confinement{alone: true}
	}
	return confinement{root: r}
}

// buffersFor returns the buffers a compile under c may read: the
// document's alone, or those inside the root (a buffer outside it is a
// file outside it); all of them under CompileDocument's own root.
func buffersFor(c confinement, path string, buffers config.Buffers) config.Buffers {
	switch {
	case c.alone:
		return config.Buffers{path: buffers[path]}
	case c.root == nil:
		return buffers
	}
	out := make(config.Buffers, len(buffers))
	for p, data := range buffers {
		if p == path || withinAny(c.root.Dirs(), p) {
			out[p] = data
		}
	}
	return out
}

// within reports whether path is dir or lies under it, by name.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// allWithin reports whether every one of dirs lies within folder.
func allWithin(folder string, dirs []string) bool {
	for _, d := range dirs {
		if !within(folder, d) {
			return false
		}
	}
	return len(dirs) > 0
}

// withinAny reports whether path lies within one of dirs.
func withinAny(dirs []string, path string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return within(d, path) })
}
