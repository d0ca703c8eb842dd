package config

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
)

// zipEntry is one entry of a generated archive. A regular file by default
// (mode 0644, stored); raw writes body as the entry's compressed data
// under the declared sizes, which may lie.
type zipEntry struct {
	name   string
	body   string
	mode   fs.FileMode
	method uint16
	flags  uint16
	raw    *rawSizes
}

// rawSizes are the sizes an entry written raw declares.
type rawSizes struct{ compressed, uncompressed uint64 }

// fixtureTime is every entry's modification time, so that the fixtures
// are the same whenever they are written.
var fixtureTime = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// zipBytes writes entries as a zip archive.
func zipBytes(t testing.TB, entries []zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: e.method, Flags: e.flags, Modified: fixtureTime}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		h.SetMode(mode)
		var err error
		if e.raw != nil {
			h.CompressedSize64, h.UncompressedSize64 = e.raw.compressed, e.raw.uncompressed
			h.CRC32 = crc32.ChecksumIEEE([]byte(e.body))
			var fw interface{ Write([]byte) (int, error) }
			if fw, err = w.CreateRaw(h); err == nil {
				_, err = fw.Write([]byte(e.body))
			}
		} else {
			var fw interface{ Write([]byte) (int, error) }
			if fw, err = w.CreateHeader(h); err == nil {
				_, err = fw.Write([]byte(e.body))
			}
		}
		if err != nil {
			t.Fatalf("writing %q: %v", e.name, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// deflated is data compressed as a zip entry's raw body.
func deflated(t testing.TB, data []byte) string {
	t.Helper()
	var buf bytes.Buffer
	fw, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(data)
	fw.Close()
	return buf.String()
}

// The files of the valid fixture packages.
const (
	fixtureMeta = "TOSCA-Meta-File-Version: 1.1\nCSAR-Version: 1.1\nCreated-By: xosplan tests\nEntry-Definitions: Definitions/main.yaml\n"
	fixtureMain = `tosca_definitions_version: tosca_simple_yaml_1_3
imports:
  - types.yaml
topology_template:
  node_templates:
    app:
      type: example.App
      interfaces:
        Standard:
          create: ../Scripts/create.sh
`
	fixtureTypes = `tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  example.App:
    derived_from: tosca.nodes.Root
`
	fixtureScript = "#!/bin/sh\necho created\n"
	fixtureTop    = "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    app:\n      type: tosca.nodes.Root\n"
)

// helloEntries is a valid package: TOSCA.meta, the entry definitions, the
// types they import and the script an operation runs.
func helloEntries() []zipEntry {
	return []zipEntry{
		{name: "TOSCA-Metadata/", mode: fs.ModeDir | 0o755},
		{name: "TOSCA-Metadata/TOSCA.meta", body: fixtureMeta},
		{name: "Definitions/main.yaml", body: fixtureMain},
		{name: "Definitions/types.yaml", body: fixtureTypes},
		{name: "Scripts/create.sh", body: fixtureScript, mode: 0o755},
	}
}

// sol004Entries is a valid SOL004 package: its manifest lists every file
// with its SHA-256 digest.
func sol004Entries() []zipEntry {
	files := map[string]string{
		"Definitions/main.yaml":  fixtureMain,
		"Definitions/types.yaml": fixtureTypes,
		"Scripts/create.sh":      fixtureScript,
		"ChangeLog.txt":          "1.0: first release\n",
	}
	manifest := "metadata:\n  vnf_provider_id: Example\n  vnf_product_name: App\n  vnf_release_date_time: 2024-01-02T03:04:05+00:00\n  vnf_package_version: '1.0'\n"
	var entries []zipEntry
	for _, name := range []string{"ChangeLog.txt", "Definitions/main.yaml", "Definitions/types.yaml", "Scripts/create.sh"} {
		manifest += fmt.Sprintf("\nSource: %s\nAlgorithm: SHA-256\nHash: %x\n", name, sha256.Sum256([]byte(files[name])))
		entries = append(entries, zipEntry{name: name, body: files[name]})
	}
	meta := fixtureMeta + "ETSI-Entry-Manifest: App.mf\nETSI-Entry-Change-Log: ChangeLog.txt\n"
	return append(entries, zipEntry{name: "TOSCA-Metadata/TOSCA.meta", body: meta}, zipEntry{name: "App.mf", body: manifest})
}

// csarFixture is one archive of testdata/csar: what it holds, and what
// reading it must say with the limits given.
type csarFixture struct {
	name    string
	entries func(testing.TB) []zipEntry
	// notZip is the content of a fixture that is not a zip archive.
	notZip string
	limits ArchiveLimits
	// code is the refusal expected (a csar.* code), "" for a package that
	// loads; entry is the member its diagnostic names, "" for the archive.
	code, entry string
}

func csarFixtures() []csarFixture {
	plain := func(es ...zipEntry) func(testing.TB) []zipEntry {
		return func(testing.TB) []zipEntry { return es }
	}
	withHello := func(es ...zipEntry) func(testing.TB) []zipEntry {
		return func(testing.TB) []zipEntry { return append(helloEntries(), es...) }
	}
	top := zipEntry{name: "main.yaml", body: fixtureTop}
	return []csarFixture{
		{name: "hello", entries: plain(helloEntries()...)},
		{name: "toplevel", entries: plain(top)},
		{name: "sol004", entries: plain(sol004Entries()...)},
		{name: "not_zip", notZip: "TOSCA-Meta-File-Version: 1.1\nthis is not a zip archive\n", code: CodeNotZip},
		{name: "dotdot", entries: withHello(zipEntry{name: "Scripts/../../evil.sh", body: "x"}), code: CodeUnsafeName},
		{name: "absolute", entries: withHello(zipEntry{name: "/etc/cron.d/evil", body: "x"}), code: CodeUnsafeName},
		{name: "drive", entries: withHello(zipEntry{name: "C:/evil.bat", body: "x"}), code: CodeUnsafeName},
		{name: "backslash", entries: withHello(zipEntry{name: `Scripts\..\..\evil.sh`, body: "x"}), code: CodeUnsafeName},
		{name: "nul", entries: withHello(zipEntry{name: "Scripts/evil\x00.sh", body: "x"}), code: CodeUnsafeName},
		{name: "control", entries: withHello(zipEntry{name: "Scripts/evil\n.sh", body: "x"}), code: CodeUnsafeName},
		{name: "duplicate", entries: withHello(zipEntry{name: "Definitions/main.yaml", body: fixtureTop}), code: CodeDuplicateEntry, entry: "Definitions/main.yaml"},
		{name: "file_and_folder", entries: withHello(zipEntry{name: "Definitions/main.yaml/x", body: "x"}), code: CodeDuplicateEntry, entry: "Definitions/main.yaml/x"},
		{name: "symlink", entries: withHello(zipEntry{name: "Scripts/passwd", body: "/etc/passwd", mode: fs.ModeSymlink | 0o777}), code: CodeSymlinkEntry, entry: "Scripts/passwd"},
		{name: "fifo", entries: withHello(zipEntry{name: "Scripts/pipe", mode: fs.ModeNamedPipe | 0o644}), code: CodeNotRegularEntry, entry: "Scripts/pipe"},
		{name: "bomb", entries: func(t testing.TB) []zipEntry {
			zeros := make([]byte, 2<<20)
			return append(helloEntries(), zipEntry{name: "Files/zeros.img", body: deflated(t, zeros), method: zip.Deflate,
				raw: &rawSizes{compressed: uint64(len(deflated(t, zeros))), uncompressed: uint64(len(zeros))}})
		}, code: CodeCompressionRatio, entry: "Files/zeros.img"},
		{name: "total", entries: withHello(zipEntry{name: "Files/image.img", body: "not really 2 GiB", method: zip.Deflate,
			raw: &rawSizes{compressed: 30 << 20, uncompressed: 2 << 30}}), code: CodeTotalTooLarge},
		{name: "many", entries: plain(helloEntries()...), limits: ArchiveLimits{Entries: 4}, code: CodeTooManyEntries},
		{name: "large", entries: plain(helloEntries()...), limits: ArchiveLimits{Size: 512}, code: CodeArchiveTooLarge},
	}
}

// fixturePath is the file of a fixture.
func fixturePath(name string) string { return filepath.Join("testdata", "csar", name+".csar") }

// fixtureBytes is what a fixture's file must hold.
func fixtureBytes(t testing.TB, fx csarFixture) []byte {
	if fx.entries == nil {
		return []byte(fx.notZip)
	}
	return zipBytes(t, fx.entries(t))
}

// TestCSARFixturesAreCurrent checks that testdata/csar holds the archives
// csarFixtures describes, entry by entry (name, mode, method, flags,
// declared size, checksum: compressed bytes may differ between Go
// versions); XOSPLAN_UPDATE=1 writes them (testutil.Update).
func TestCSARFixturesAreCurrent(t *testing.T) {
	update := testutil.Update(t)
	for _, fx := range csarFixtures() {
		want := fixtureBytes(t, fx)
		if update {
			if err := os.WriteFile(fixturePath(fx.name), want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(fixturePath(fx.name))
		if err != nil {
			t.Fatalf("%v (run XOSPLAN_UPDATE=1 go test -run TestCSARFixturesAreCurrent)", err)
		}
		if g, w := listing(got), listing(want); g != w {
			t.Errorf("%s differs from its description (run XOSPLAN_UPDATE=1 go test -run TestCSARFixturesAreCurrent)\n--- file\n%s--- description\n%s", fx.name, g, w)
		}
	}
}

// listing describes an archive's entries, or its bytes when it is none.
func listing(data []byte) string {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Sprintf("not a zip: %q\n", data)
	}
	var b strings.Builder
	for _, f := range zr.File {
		fmt.Fprintf(&b, "%q %v method=%d flags=%d size=%d crc=%08x\n", f.Name, f.Mode(), f.Method, f.Flags, f.UncompressedSize64, f.CRC32)
	}
	return b.String()
}
