package tosca1

// What the 1.x compiler names from internal/core, which it shares with
// the 2.0 one, by the names its code has always used.

import (
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// kind is a kind of type.
type kind = core.Kind

const (
	kArtifact     = core.KArtifact
	kData         = core.KData
	kCapability   = core.KCapability
	kInterface    = core.KInterface
	kRelationship = core.KRelationship
	kNode         = core.KNode
	kGroup        = core.KGroup
	kPolicy       = core.KPolicy
	numKinds      = core.NumKinds
)

// The helpers of internal/core.

func text(n *yamlsrc.Node) string                          { return core.Text(n) }
func itoa(i int64) string                                  { return core.Itoa(i) }
func quote(s string) string                                { return core.Quote(s) }
func quoteAll(names []string) []string                     { return core.QuoteAll(names) }
func clipText(s string, n int) string                      { return core.ClipText(s, n) }
func plainErr(err error) error                             { return core.PlainErr(err) }
func nodeOf(v any, r diag.Range) *yamlsrc.Node             { return core.NodeOf(v, r) }
func rangeOf(n *yamlsrc.Node) diag.Range                   { return core.RangeOf(n) }
func startOf(r diag.Range) diag.Range                      { return core.StartOf(r) }
func joinPath(path, key string) string                     { return core.JoinPath(path, key) }
func describeValue(n *yamlsrc.Node) string                 { return core.DescribeValue(n) }
func mergeNodes(base, over *yamlsrc.Node) *yamlsrc.Node    { return core.MergeNodes(base, over) }
func fileKey(path string) string                           { return core.FileKey(path) }
func declaredAt(key *yamlsrc.Node, embedded bool) string   { return core.DeclaredAt(key, embedded) }
func callResult(v graph.Value, secret bool) string         { return core.CallResult(v, secret) }
func writeDescription(b *strings.Builder, n *yamlsrc.Node) { core.WriteDescription(b, n) }
func writeDescriptionTo(d *string, n *yamlsrc.Node)        { core.WriteDescriptionTo(d, n) }

func dropNil(m map[string]graph.Value) map[string]graph.Value { return core.DropNil(m) }

func repositoryURL(repo *yamlsrc.Node, file string) string { return core.RepositoryURL(repo, file) }

func repositoryFile(repo *yamlsrc.Node, def, file string) (name, dir string, ok bool) {
	return core.RepositoryFile(repo, def, file)
}

const (
	maxValueDepth      = core.MaxValueDepth
	maxDerivationDepth = core.MaxDerivationDepth
)

func longImportKeys() []string { return core.LongImportKeys() }

// pathKey is a step of a YAML path.
type pathKey = core.PathKey

func pathOf(keys []pathKey) string { return core.PathOf(keys) }
func ifaceMetaKeys() []string      { return core.IfaceMetaKeys() }

func metaSensitive(n *yamlsrc.Node) bool { return core.MetaSensitive(n) }
