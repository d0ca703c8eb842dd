package config

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/manifest"
	"github.com/xosplan/xosplan/pkg/symbols"
	"github.com/xosplan/xosplan/pkg/tosca"
)

// Buffers holds the text of files an editor has open, perhaps unsaved, by
// absolute, cleaned path. A compile reads a file Buffers holds from it,
// not from disk.
type Buffers map[string][]byte

// Contains implements tosca.Files and manifest.Files.
func (b Buffers) Contains(name string) bool {
	_, ok := b[bufferKey(name)]
	return ok
}

// Exists implements tosca.Files.
func (b Buffers) Exists(name string) bool { return b.Contains(name) }

// ReadFile implements tosca.Files and manifest.Files: the buffer's text,
// or an error wrapping fs.ErrNotExist.
func (b Buffers) ReadFile(ctx context.Context, name string, max int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, ok := b[bufferKey(name)]
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, max)
	}
	return data, nil
}

// String names the buffers in messages.
func (b Buffers) String() string { return "the editor's buffers" }

func bufferKey(name string) string {
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return filepath.Clean(name)
}

// Document is what CompileDocument found.
type Document struct {
	// Format is the file's format, "" when it is neither TOSCA nor a
	// manifest (Diags then holds only YAML syntax errors, if any).
	Format Format
	// Index holds the names of the unit the file belongs to; its Files
	// are every file the result depends on. Never nil.
	Index *symbols.Index
	// Diags are those of the whole unit, sorted: the caller keeps the
	// ones of the files it shows.
	Diags diag.Diagnostics
}

// DocumentOptions tune CompileDocument.
type DocumentOptions struct {
	// Root confines the files read from disk; nil: FindRoot of the
	// file's folder (the repository holding it, else the folder).
	Root *Root
	// Buffers are read instead of the files they hold.
	Buffers Buffers
	// ImportMap is tosca.Options.ImportMap.
	ImportMap map[string]string
	// Profiles is tosca.Options.Profiles: where TOSCA 2.0 templates find
	// the profiles they import by name, indexed once for every compile.
	Profiles *tosca.ProfileIndex
	// Parses is tosca.Options.Parses: the parses of the last compiles,
	// reused where a file did not change or changed inside one entry.
	Parses *tosca.ParseCache
	// Alone compiles the file from its buffer alone, for a document that
	// lies outside the editor's workspace: nothing beside it is read, from
	// disk or from the other buffers; a TOSCA import of a local file is
	// refused as outside the configuration root, a manifest is an
	// environment of its own. Root is then ignored.
	Alone bool
}

// loneBuffer holds the one buffer a document compiled Alone reads; it
// says so in a refusal of what lies beside it (tosca.Files).
type loneBuffer struct{ Buffers }

// DescribeRoot implements tosca's description of the root of a compile
// that reads its files from Files alone.
func (loneBuffer) DescribeRoot() string {
	return "the document lies outside the editor's workspace folders, so nothing beside it is read"
}

// CompileDocument compiles the unit one file belongs to, as Load would
// compile it, for an editor: a TOSCA file with its imports
// (tosca.CompileIndexed), a manifest with the other manifests of its
// folder as one environment (manifest.CompileEnvironmentIndexed). The
// file, and every other file the buffers hold, is read from the buffers;
// other files come from disk inside the root. Input values are not
// known in an editor, so required inputs are not checked.
func CompileDocument(ctx context.Context, path string, opts DocumentOptions) Document {
	path = bufferKey(path)
	doc := Document{Index: &symbols.Index{Files: []string{path}}}
	if opts.Alone {
		return compileAlone(ctx, path, opts)
	}
	root := opts.Root
	if root == nil {
		r, err := FindRoot(filepath.Dir(path), []string{filepath.Dir(path)})
		if err != nil {
			doc.Diags = doc.Diags.Errorf(diag.Range{File: path}, "", CodeUnreadable, "finding the configuration root: %v", err)
			return doc
		}
		root = r
	}
	data, ok := opts.Buffers[path]
	if !ok {
		var problem *diag.Diagnostic
		if data, problem = ReadFile(ctx, path, root); problem != nil {
			doc.Diags = doc.Diags.Append(*problem)
			return doc
		}
	}
	doc.Format = formatOf(path, data)
	return compileFormat(ctx, doc, path, data, root, opts)
}

// compileAlone is CompileDocument of a file from its buffer alone
// (DocumentOptions.Alone).
func compileAlone(ctx context.Context, path string, opts DocumentOptions) Document {
	doc := Document{Index: &symbols.Index{Files: []string{path}}}
	data, ok := opts.Buffers[path]
	if !ok {
		return doc
	}
	lone := loneBuffer{Buffers{path: data}}
	doc.Format = formatOf(path, data)
	var x *symbols.Index
	switch doc.Format {
	case FormatTOSCA:
		_, x, doc.Diags = tosca.CompileIndexed(ctx, path, tosca.Options{ImportMap: opts.ImportMap, Files: lone, Profiles: opts.Profiles, Parses: opts.Parses})
	case FormatManifest:
		_, x, doc.Diags = manifest.CompileEnvironmentIndexed(ctx, []string{path}, manifest.Options{Files: lone.Buffers})
	default:
		if _, ds := yamlsrc.ParseAll(path, data, yamlsrc.Limits{}); ds.HasErrors() {
			doc.Diags = ds
		}
		return doc
	}
	return withIndex(doc, x, path)
}

// compileFormat compiles the unit of the file at path, whose text is
// data and whose format doc.Format says, under root.
func compileFormat(ctx context.Context, doc Document, path string, data []byte, root *Root, opts DocumentOptions) Document {
	var x *symbols.Index
	switch doc.Format {
	case FormatTOSCA:
		_, x, doc.Diags = tosca.CompileIndexed(ctx, path, tosca.Options{Root: root.Dirs(), ImportMap: opts.ImportMap, Files: opts.Buffers, Profiles: opts.Profiles, Parses: opts.Parses})
	case FormatManifest:
		files := folderManifests(ctx, filepath.Dir(path), root, opts.Buffers)
		if !slices.Contains(files, path) {
			files = append(files, path)
			slices.Sort(files)
		}
		_, x, doc.Diags = manifest.CompileEnvironmentIndexed(ctx, files, manifest.Options{Root: root.Dirs(), Files: opts.Buffers})
	default:
		if _, ds := yamlsrc.ParseAll(path, data, yamlsrc.Limits{}); ds.HasErrors() {
			doc.Diags = ds
		}
		return doc
	}
	return withIndex(doc, x, path)
}

// withIndex sets the index of a compile of path, which lists path among
// the files it depends on.
func withIndex(doc Document, x *symbols.Index, path string) Document {
	if x != nil {
		doc.Index = x
		if !slices.Contains(x.Files, path) {
			x.Files = append([]string{path}, x.Files...)
		}
	}
	return doc
}

// formatOf detects the format of a file's text as Load does, without
// warnings: an editor's buffer of another YAML format is just not ours.
func formatOf(path string, data []byte) Format {
	switch {
	case toscaMarker.Match(data):
		return FormatTOSCA
	case manifestMarker.Match(data):
		return FormatManifest
	}
	docs, _ := yamlsrc.ParseAll(path, data, yamlsrc.Limits{})
	for _, d := range docs {
		switch {
		case tosca.LooksLike(d):
			return FormatTOSCA
		case manifest.LooksLike(d):
			return FormatManifest
		}
	}
	return ""
}

// folderManifests lists the manifests of a folder (not walked), with
// those the buffers hold there, on disk or not.
func folderManifests(ctx context.Context, dir string, root *Root, buffers Buffers) []string {
	seen := map[string]bool{}
	var out []string
	consider := func(p string, data []byte) {
		if !seen[p] && formatOf(p, data) == FormatManifest {
			seen[p] = true
			out = append(out, p)
		}
	}
	for p, data := range buffers {
		if filepath.Dir(p) == dir {
			consider(p, data)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() || !isYAMLName(e.Name()) || seen[p] || ctx.Err() != nil {
			continue
		}
		if data, problem := ReadFile(ctx, p, root); problem == nil {
			consider(p, data)
		}
	}
	slices.Sort(out)
	return out
}

// JSONSchema returns the JSON Schema (draft 2020-12) of a file format,
// FormatTOSCA (a TOSCA 1.0–1.3 or 2.0 file) or FormatManifest, for
// editors without a language server; an error for another format.
func JSONSchema(f Format) ([]byte, error) {
	switch f {
	case FormatTOSCA:
		return tosca.JSONSchema()
	case FormatManifest:
		return manifest.JSONSchema(nil)
	}
	return nil, fmt.Errorf("no JSON Schema for format %q", f)
}
