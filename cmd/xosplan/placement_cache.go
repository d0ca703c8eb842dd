package main

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/placement"
)

// Limits of the provider-inventory cache (docs/placement.md, SECURITY.md).
const (
	// maxInventoryCacheEntries is how many inventories the cache keeps; a
	// write past it removes the least recently written.
	maxInventoryCacheEntries = 16
	// inventoryCacheSlack bounds what is read of an entry: its inventory's
	// size times four plus this (the compact form is smaller than the YAML
	// it comes from, but a tiny file's header is not).
	inventoryCacheSlack = 4096
)

// inventoryCacheHeader starts every cache entry, before the key it was
// written for and the SHA-256 of its compact form.
const inventoryCacheHeader = "xosplan provider inventory cache 1\n"

// inventoryCache keeps the compact form (placement.MarshalCompact) of the
// valid provider inventories xosplan has read, so that a later run over the
// same bytes decodes it instead of parsing YAML. An entry is keyed by the
// SHA-256 of the file's bytes and xosplan's version; nothing read back is
// trusted: an entry whose key or checksum does not match, or that does not
// decode, is ignored and rewritten. The cache is best effort: a folder that
// cannot be read or written only costs the parse. A zero dir disables it.
type inventoryCache struct{ dir string }

// newInventoryCache returns the cache under $XDG_CACHE_HOME/xosplan/placement
// (default ~/.cache), disabled by --no-cache or XOSPLAN_NO_CACHE=1, or
// when neither variable gives an absolute folder.
func newInventoryCache(c *cli, off bool) inventoryCache {
	if off || c.getenv("XOSPLAN_NO_CACHE") == "1" {
		return inventoryCache{}
	}
	dir := cacheHome(c)
	if dir == "" || !filepath.IsAbs(dir) {
		return inventoryCache{}
	}
	return inventoryCache{dir: filepath.Join(dir, "xosplan", "placement")}
}

// key names the entry of an inventory's bytes read by this build.
func (ic inventoryCache) key(data []byte) []byte {
	sum := sha256.Sum256(data)
	h := sha256.New()
	h.Write([]byte(version()))
	h.Write([]byte{0})
	h.Write(sum[:])
	return h.Sum(nil)
}

// load returns the model of data: from the cache when it holds a sound
// entry for these bytes, else placement.LoadProviders, whose result is
// stored when the inventory has no diagnostic at all (so a file with
// problems is parsed, and reported, every time).
func (ic inventoryCache) load(name string, data []byte) (*placement.Model, diag.Diagnostics) {
	if ic.dir == "" {
		return placement.LoadProviders(name, data)
	}
	key := ic.key(data)
	path := filepath.Join(ic.dir, hex.EncodeToString(key)+".bin")
	if m := ic.read(path, key, int64(len(data))*4+inventoryCacheSlack); m != nil {
		return m, nil
	}
	m, diags := placement.LoadProviders(name, data)
	if len(diags) == 0 {
		ic.write(path, key, m.MarshalCompact())
	}
	return m, diags
}

// read decodes the entry at path, or returns nil when it is missing,
// too large, for another key, damaged or invalid.
func (ic inventoryCache) read(path string, key []byte, limit int64) *placement.Model {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil || int64(len(buf)) > limit {
		return nil
	}
	rest, ok := bytes.CutPrefix(buf, []byte(inventoryCacheHeader))
	if !ok || len(rest) < 2*sha256.Size || !bytes.Equal(rest[:sha256.Size], key) {
		return nil
	}
	sum, payload := rest[sha256.Size:2*sha256.Size], rest[2*sha256.Size:]
	if got := sha256.Sum256(payload); !bytes.Equal(got[:], sum) {
		return nil
	}
	m, err := placement.UnmarshalCompact(payload)
	if err != nil {
		return nil
	}
	return m
}

// write stores an entry atomically (a temporary file renamed into place,
// readable by the user only), then trims the cache to its bound. Failures
// are ignored: the cache only saves time.
func (ic inventoryCache) write(path string, key, payload []byte) {
	if err := os.MkdirAll(ic.dir, 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(ic.dir, ".tmp-*")
	if err != nil {
		return
	}
	sum := sha256.Sum256(payload)
	var werr error
	for _, b := range [][]byte{[]byte(inventoryCacheHeader), key, sum[:], payload} {
		if werr == nil {
			_, werr = tmp.Write(b)
		}
	}
	if err := tmp.Close(); werr != nil || err != nil || os.Rename(tmp.Name(), path) != nil {
		_ = os.Remove(tmp.Name())
		return
	}
	ic.trim()
}

// trim removes the oldest entries beyond maxInventoryCacheEntries.
func (ic inventoryCache) trim() {
	ents, err := os.ReadDir(ic.dir)
	if err != nil {
		return
	}
	type entry struct {
		name string
		mod  int64
	}
	var es []entry
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".bin") {
			continue
		}
		if info, err := e.Info(); err == nil {
			es = append(es, entry{e.Name(), info.ModTime().UnixNano()})
		}
	}
	if len(es) <= maxInventoryCacheEntries {
		return
	}
	slices.SortFunc(es, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.mod, b.mod), strings.Compare(a.name, b.name))
	})
	for _, e := range es[:len(es)-maxInventoryCacheEntries] {
		_ = os.Remove(filepath.Join(ic.dir, e.name))
	}
}
