package config

import (
	"archive/zip"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
)

// readTSV reads a tab-separated file, leaving out its header line and the
// lines that start with #.
func readTSV(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if i == 0 || strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		rows = append(rows, strings.Split(line, "\t"))
	}
	return rows
}

// csarCorpusFloor is the agreement reached with the corpus's verdicts:
// raw, and with testdata/csar_corpus/exceptions.tsv applied.
var csarCorpusFloor = struct{ raw, excepted int }{16, 24}

// TestCSARCorpus loads every archive of the CSAR corpus (tosca-parser's
// CSAR tests) and compares the verdict with EXPECTED.tsv: valid is no
// error, invalid at least one. Agreement is counted raw, and with the
// verdict xosplan holds by the specification where
// testdata/csar_corpus/exceptions.tsv disputes a row (each with its
// reason).
func TestCSARCorpus(t *testing.T) {
	base := testutil.CorpusDir(t, "csar")
	root := rootOf(t, base)
	exceptions := map[string][]string{}
	for _, r := range readTSV(t, filepath.Join("testdata", "csar_corpus", "exceptions.tsv")) {
		if len(r) != 3 || r[2] == "" {
			t.Fatalf("exceptions.tsv: want path, verdict and reason: %q", r)
		}
		exceptions[r[0]] = r
	}
	raw, excepted, total := 0, 0, 0
	for _, r := range readTSV(t, filepath.Join(base, "EXPECTED.tsv")) {
		path, expect := r[0], r[1]
		res := Load(context.Background(), []string{filepath.Join(base, path)}, Options{Root: root})
		got := "valid"
		if res.Diags.HasErrors() {
			got = "invalid"
		}
		total++
		if got == expect {
			raw++
		}
		want := expect
		if e, ok := exceptions[path]; ok {
			delete(exceptions, path)
			want = e[1]
			if e[1] == expect {
				t.Errorf("%s: the exception gives the corpus's own verdict", path)
			}
			if got == expect {
				t.Errorf("%s: xosplan now gives the corpus's verdict %s; remove the exception (%s)", path, expect, e[2])
			}
		}
		if got == want {
			excepted++
			continue
		}
		msg := path + ": expected " + want
		for _, d := range res.Diags {
			if d.Severity == diag.Error {
				msg += "\n    " + d.Error()
			}
		}
		t.Log(msg)
	}
	for path := range exceptions {
		t.Errorf("exceptions.tsv: %s is not a row of EXPECTED.tsv", path)
	}
	t.Logf("%d/%d agree raw, %d/%d with exceptions", raw, total, excepted, total)
	if raw < csarCorpusFloor.raw || excepted < csarCorpusFloor.excepted {
		t.Errorf("agreement %d raw, %d with exceptions; the floors are %d and %d", raw, excepted, csarCorpusFloor.raw, csarCorpusFloor.excepted)
	}
}

// TestCSARCorpusUnpackedAgrees unpacks every archive of the CSAR corpus
// that holds TOSCA.meta (a folder is a package only with one) and loads
// the folder: it must say what the archive says, diagnostic for
// diagnostic, naming files relative to the package.
func TestCSARCorpusUnpackedAgrees(t *testing.T) {
	base := testutil.CorpusDir(t, "csar")
	archives, err := filepath.Glob(filepath.Join(base, "*.zip"))
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, archive := range archives {
		folder := filepath.Join(t.TempDir(), "pkg")
		if !unzipForTest(t, archive, folder) || !isPackageFolder(folder) {
			continue
		}
		compared++
		fromArchive := Load(context.Background(), []string{archive}, Options{Root: rootOf(t, base)})
		fromFolder := Load(context.Background(), []string{folder}, Options{Root: rootOf(t, folder)})
		a := founds(fromArchive.Diags, archive+"!/")
		f := founds(fromFolder.Diags, folder+string(filepath.Separator))
		if !slices.Equal(a, f) {
			t.Errorf("%s: the archive says %v, the folder %v", filepath.Base(archive), a, f)
		}
	}
	if compared < 15 {
		t.Errorf("compared %d packages; the corpus has 15 with TOSCA.meta", compared)
	}
}

// unzipForTest extracts a zip archive of the corpus into dir (trusted
// test material, but its names are still checked), or reports false when
// it is not one.
func unzipForTest(t *testing.T, archive, dir string) bool {
	t.Helper()
	zr, err := zip.OpenReader(archive)
	if err != nil {
		return false
	}
	defer zr.Close()
	for _, f := range zr.File {
		if unsafeEntryName(f.Name) != "" {
			t.Fatalf("%s: unsafe entry %q", archive, f.Name)
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return true
}

// tackerFloor is how many of the Tacker VNF package folders of the
// real-world corpus load without an error.
const tackerFloor = 79 // of 106

// TestTackerPackageFolders loads every folder of the real-world corpus's
// Tacker tree laid out as an unpacked CSAR (TOSCA-Metadata/TOSCA.meta),
// as `xosplan validate FOLDER` does: each is one package, compiled from
// its Entry-Definitions. Many are stored without the files Tacker's tests
// add when they build the package (the entry definitions, a manifest, an
// image); those say so (csar.entry_not_found, tosca.artifact_not_found).
func TestTackerPackageFolders(t *testing.T) {
	corpus := testutil.CorpusDir(t)
	tacker := filepath.Join(corpus, "realworld", "tacker")
	var folders []string
	err := filepath.WalkDir(tacker, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && isPackageFolder(p) {
			// As a walk of configuration does: a package's files are its
			// own, not walked.
			folders = append(folders, p)
			return filepath.SkipDir
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	root := rootOf(t, corpus)
	clean, incomplete := 0, 0
	for _, folder := range folders {
		res := Load(context.Background(), []string{folder}, Options{Root: root})
		if len(res.Units) > 1 || len(res.Units) == 1 && res.Units[0].Package != folder {
			t.Errorf("%s: units %v, want the package alone", folder, res.Units)
		}
		if !res.Diags.HasErrors() {
			clean++
			continue
		}
		rel, _ := filepath.Rel(tacker, folder)
		msg := rel
		for _, d := range res.Diags {
			if d.Severity == diag.Error {
				if d.Code == CodeEntryNotFound || d.Code == "tosca.artifact_not_found" {
					incomplete++
				}
				msg += "\n    " + strings.TrimPrefix(d.Error(), folder+string(filepath.Separator))
				break
			}
		}
		t.Log(msg)
	}
	t.Logf("%d package folders: %d without error, %d stored without a file they name, %d with other errors", len(folders), clean, incomplete, len(folders)-clean-incomplete)
	if clean < tackerFloor {
		t.Errorf("%d package folders load without error, below the floor of %d", clean, tackerFloor)
	}
}
