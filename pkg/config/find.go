package config

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
)

// findFiles expands the paths given into sorted lists of distinct files
// and CSAR packages (archives named, and folders laid out as unpacked
// CSARs, named or met in a walk), with a diagnostic for every path that
// cannot be used, and the set of files that were named themselves rather
// than met in a folder walk. It stops walking when ctx is done.
func findFiles(ctx context.Context, paths []string) (files, packages []string, named map[string]bool, diags diag.Diagnostics) {
	named = map[string]bool{}
	seen := map[string]bool{}
	adder := func(list *[]string) func(string) {
		return func(f string) {
			f = filepath.Clean(f)
			if !seen[f] {
				seen[f] = true
				*list = append(*list, f)
			}
		}
	}
	add, addPackage := adder(&files), adder(&packages)
	for _, p := range paths {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			diags = diags.Append(*fileProblem(p, err))
			continue
		case !fi.IsDir() && diag.IsArchiveName(p):
			addPackage(p)
			continue
		case !fi.IsDir():
			// A named file is taken whatever its extension; ReadFile
			// reports special files.
			add(p)
			named[filepath.Clean(p)] = true
			continue
		case isPackageFolder(p):
			addPackage(p)
			continue
		}
		before := len(files) + len(packages)
		walkDiags := walkFolder(ctx, p, add, addPackage)
		diags = diags.Extend(walkDiags)
		if len(files)+len(packages) == before && len(walkDiags) == 0 {
			diags = diags.Warnf(diag.Range{File: p}, "", CodeNoFiles, "no *.yaml or *.yml files in folder %s", p)
		}
	}
	slices.Sort(files)
	slices.Sort(packages)
	return files, packages, named, diags
}

// withoutFile returns files without the ones that are the file skip
// names (the same file, whatever the spelling of its path).
func withoutFile(files []string, skip string) []string {
	if skip == "" {
		return files
	}
	target, err := os.Stat(skip)
	if err != nil {
		return files
	}
	return slices.DeleteFunc(files, func(f string) bool {
		fi, err := os.Stat(f)
		return err == nil && os.SameFile(fi, target)
	})
}

// walkFolder calls add for every YAML file under root, in lexical order,
// until ctx is done, and addPackage for every folder below it laid out as
// an unpacked CSAR, whose files are then the package's, not walked.
// Hidden folders (.git …) are skipped and symbolic links to folders are
// not followed, so a link loop cannot trap the walk.
func walkFolder(ctx context.Context, root string, add, addPackage func(string)) diag.Diagnostics {
	var diags diag.Diagnostics
	// The walk function never returns an error: each problem is a
	// diagnostic and the walk goes on.
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return fs.SkipAll
		}
		if err != nil {
			diags = diags.Append(*fileProblem(path, err))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			switch {
			case path == root:
			case strings.HasPrefix(d.Name(), "."):
				return fs.SkipDir
			case isPackageFolder(path):
				addPackage(path)
				return fs.SkipDir
			}
			return nil
		}
		if !isYAMLName(d.Name()) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			// A link to a folder is not followed; a broken link or a link
			// loop is reported when the file is read.
			if fi, err := os.Stat(path); err == nil && fi.IsDir() {
				return nil
			}
		}
		add(path)
		return nil
	})
	return diags
}

func isYAMLName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}
