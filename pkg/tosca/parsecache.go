package tosca

import (
	"bytes"
	"context"
	"slices"
	"sync"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
)

// ParseCache keeps the parse of the files compiles read, for the compiles
// an editor runs one after another (xosplan lsp, Options.Parses): a file
// whose text did not change since the last compile that read it is not
// parsed again (a template that imports the file being edited), and one
// whose text changed inside one entry of a block mapping has only that
// entry parsed again (the template being edited; yamlsrc.Reparse gives
// the tree a whole parse gives). It keeps the last version read of each
// file, of maxCachedFiles files at most (those read longest ago are
// dropped). Its trees are read-only, like the embedded files' (a compile
// never writes to a parsed tree), so compiles running at once may share
// it. The zero value is not usable; NewParseCache makes one.
type ParseCache struct {
	mu    sync.Mutex
	files map[string]cachedParse
	// reads counts the parses asked for, to tell which file was read
	// longest ago.
	reads uint64
}

// maxCachedFiles bounds the files a ParseCache keeps: an editor's
// session may open a whole repository over a day.
const maxCachedFiles = 512

// cachedParse is one file's last parse, and when it was last read.
type cachedParse struct {
	data  []byte
	root  *yamlsrc.Node
	diags diag.Diagnostics
	read  uint64
}

// NewParseCache returns an empty cache.
func NewParseCache() *ParseCache { return &ParseCache{files: map[string]cachedParse{}} }

// parse is yamlsrc.Parse of the file name's data, from the cache when it
// can be (a nil cache parses). A parse ctx stopped is not kept.
func (pc *ParseCache) parse(ctx context.Context, name string, data []byte) (*yamlsrc.Node, diag.Diagnostics) {
	if pc == nil {
		return yamlsrc.ParseContext(ctx, name, data, yamlsrc.Limits{})
	}
	pc.mu.Lock()
	pc.reads++
	last, seen := pc.files[name]
	if seen && bytes.Equal(last.data, data) {
		last.read = pc.reads
		pc.files[name] = last
		pc.mu.Unlock()
		return last.root, slices.Clone(last.diags)
	}
	pc.mu.Unlock()
	var root *yamlsrc.Node
	var diags diag.Diagnostics
	reparsed := false
	if seen && len(last.diags) == 0 {
		root, reparsed = yamlsrc.Reparse(name, last.root, last.data, data, yamlsrc.Limits{})
	}
	if !reparsed {
		root, diags = yamlsrc.ParseContext(ctx, name, data, yamlsrc.Limits{})
	}
	if ctx.Err() != nil {
		return root, diags
	}
	pc.mu.Lock()
	if _, kept := pc.files[name]; !kept && len(pc.files) >= maxCachedFiles {
		oldest := ""
		for n, f := range pc.files {
			if oldest == "" || f.read < pc.files[oldest].read {
				oldest = n
			}
		}
		delete(pc.files, oldest)
	}
	pc.reads++
	pc.files[name] = cachedParse{data: bytes.Clone(data), root: root, diags: diags, read: pc.reads}
	pc.mu.Unlock()
	return root, slices.Clone(diags)
}
