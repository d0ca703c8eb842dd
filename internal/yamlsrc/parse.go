package yamlsrc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/xosplan/xosplan/pkg/diag"
	yaml "go.yaml.in/yaml/v3"
)

// Limits bound what Parse accepts. The zero value of a field means its
// default.
type Limits struct {
	MaxFileBytes     int // default 16 MiB
	MaxDepth         int // default 256
	MaxScalarBytes   int // default 4 MiB
	MaxItems         int // entries of one mapping or sequence; default 1,000,000
	MaxNodes         int // nodes of the whole file as written (aliases once); default NodeLimit(file size)
	MaxExpandedNodes int // nodes of one document with aliases expanded; default NodeLimit(file size)
	MaxDocuments     int // documents in one stream; default 1,000
}

// Default limits, documented in docs/limits.md and SECURITY.md. The YAML
// library keeps about 200 bytes a node and our tree 170 more, at about a
// microsecond each, so the node limits are what bound a file's cost. They
// grow with the file (NodeLimit): 1,000,000 nodes for any file (a file of
// the densest YAML there is, two bytes a node, validates in about a
// second and 400 MB: BenchmarkValidateDenseFile), and one node per
// BytesPerNode bytes past that, which a template written in flow style
// (about 7 bytes a node) or block style (more) never reaches: a file of
// 80,000 node templates is about 1,550,000 nodes in 10.8 MB. The file
// size limit bounds the largest to DefaultMaxFileBytes/BytesPerNode.
const (
	DefaultMaxFileBytes   = 16 << 20
	DefaultMaxDepth       = 256
	DefaultMaxScalarBytes = 4 << 20
	DefaultMaxItems       = 1_000_000
	DefaultMaxNodes       = 1_000_000
	DefaultMaxDocuments   = 1_000
	// BytesPerNode is the least number of bytes a node of a file past
	// DefaultMaxNodes nodes takes on average.
	BytesPerNode = 6
)

// NodeLimit is the default of Limits.MaxNodes and MaxExpandedNodes for a
// file of size bytes: DefaultMaxNodes, or one node per BytesPerNode
// bytes when that is more (at most 2,796,202 for a file at the 16 MiB
// limit).
func NodeLimit(size int) int {
	return max(DefaultMaxNodes, size/BytesPerNode)
}

// withDefaults fills in the limits left zero for a file of size bytes.
func (l Limits) withDefaults(size int) Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxFileBytes, DefaultMaxFileBytes)
	def(&l.MaxDepth, DefaultMaxDepth)
	def(&l.MaxScalarBytes, DefaultMaxScalarBytes)
	def(&l.MaxItems, DefaultMaxItems)
	def(&l.MaxNodes, NodeLimit(size))
	def(&l.MaxExpandedNodes, NodeLimit(size))
	def(&l.MaxDocuments, DefaultMaxDocuments)
	return l
}

// Diagnostic codes of this package.
const (
	CodeTooLarge    = "yaml.too_large"
	CodeSyntax      = "yaml.syntax"
	CodeBinary      = "yaml.not_text"
	CodeTooDeep     = "yaml.too_deep"
	CodeTooLong     = "yaml.too_long"
	CodeTooMany     = "yaml.too_many_nodes"
	CodeAliasBomb   = "yaml.alias_expansion"
	CodeAliasCycle  = "yaml.alias_cycle"
	CodeBadMerge    = "yaml.bad_merge"
	CodeMultipleDoc = "yaml.multiple_documents"
	CodeCanceled    = "yaml.canceled"
)

// Parse reads exactly one YAML document. An empty stream gives a nil node
// and no diagnostics; a stream with several documents is an error.
func Parse(file string, data []byte, lim Limits) (*Node, diag.Diagnostics) {
	return ParseContext(context.Background(), file, data, lim)
}

// ParseContext is Parse that stops when ctx ends: the YAML library reads
// the data through ctx, a few hundred bytes at a time, so that a large
// file's parse stops soon after; what it returns then is no document and
// one CodeCanceled error.
func ParseContext(ctx context.Context, file string, data []byte, lim Limits) (*Node, diag.Diagnostics) {
	docs, diags := ParseAllContext(ctx, file, data, lim)
	if len(docs) > 1 {
		diags = diags.Errorf(docs[1].Range, "", CodeMultipleDoc, "expected one YAML document, found %d", len(docs))
		return docs[0], diags
	}
	if len(docs) == 0 {
		return nil, diags
	}
	return docs[0], diags
}

// ParseAll reads every document of a YAML stream ("---" separated).
// A document that is empty is left out.
func ParseAll(file string, data []byte, lim Limits) (docs []*Node, diags diag.Diagnostics) {
	return ParseAllContext(context.Background(), file, data, lim)
}

// ParseAllContext is ParseAll that stops when ctx ends (see ParseContext).
// The fast reader (fast.go) reads what it can; the rest goes to the YAML
// library, with the same result.
func ParseAllContext(ctx context.Context, file string, data []byte, lim Limits) (docs []*Node, diags diag.Diagnostics) {
	lim = lim.withDefaults(len(data))
	d, fast := refuseUnreadable(file, data, lim)
	if d != nil {
		return nil, diags.Append(*d)
	}
	if fast {
		if docs, diags, ok := readFast(ctx, file, data, lim); ok {
			return docs, diags
		}
	}
	return parseLibrary(ctx, file, data, lim)
}

// parseLibrary reads data, which refuseUnreadable accepted, with the YAML
// library and converts its tree into ours.
func parseLibrary(ctx context.Context, file string, data []byte, lim Limits) (docs []*Node, diags diag.Diagnostics) {
	if d := refuseTooMany(file, data, lim); d != nil {
		return nil, diags.Append(*d)
	}
	idx := newLineIndex(data)
	defer func() {
		// The YAML library is not ours; whatever it does, the caller gets a
		// diagnostic, never a panic.
		if r := recover(); r != nil {
			docs = nil
			diags = diags.Errorf(diag.Range{File: file, Start: diag.Pos{Line: 1, Column: 1}}, "", CodeSyntax,
				"the YAML parser failed on this file: %v", r)
		}
	}()
	dec := yaml.NewDecoder(ctxReader{ctx, bytes.NewReader(data)})
	nodes := 0
	for {
		var raw yaml.Node
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if ctx.Err() != nil {
			return nil, diags.Errorf(diag.Range{File: file, Start: diag.Pos{Line: 1, Column: 1}}, "", CodeCanceled, "reading stopped: %v", context.Cause(ctx))
		}
		if err != nil {
			diags = diags.Append(syntaxDiag(file, idx, dec, err))
			break
		}
		if len(docs) >= lim.MaxDocuments {
			diags = diags.Errorf(diag.Range{File: file, Start: diag.Pos{Line: raw.Line, Column: raw.Column}}, "", CodeTooLarge,
				"more than %d YAML documents in one file", lim.MaxDocuments)
			break
		}
		c := converter{file: file, idx: idx, lim: lim, memo: map[*yaml.Node]*Node{}}
		root := &raw
		if raw.Kind == yaml.DocumentNode {
			if len(raw.Content) == 0 {
				continue
			}
			root = raw.Content[0]
		}
		n := c.convertDocument(root, &nodes)
		diags = diags.Append(c.diags...)
		if c.diags.HasErrors() {
			break
		}
		if n != nil && !(n.Kind == Scalar && n.Tag == TagNull && n.Value == "") {
			docs = append(docs, n)
		}
	}
	return docs, diags
}

// refuseUnreadable returns the error of a file no reader must see: too
// large or not text; nil otherwise. fast reports, for a file it accepts,
// whether the fast reader may read it (scanText).
func refuseUnreadable(file string, data []byte, lim Limits) (d *diag.Diagnostic, fast bool) {
	var diags diag.Diagnostics
	if len(data) > lim.MaxFileBytes {
		diags = diags.Errorf(diag.Range{File: file, Start: diag.Pos{Line: 1, Column: 1}}, "", CodeTooLarge,
			"file is %d bytes; the limit is %d bytes (%d MiB)", len(data), lim.MaxFileBytes, lim.MaxFileBytes>>20)
		return &diags[0], false
	}
	bad, fast := scanText(data)
	if bad >= 0 {
		p := newLineIndex(data).posOfByte(bad)
		diags = diags.Errorf(diag.Range{File: file, Start: p, End: p}, "", CodeBinary,
			"file is not UTF-8 text (byte 0x%02x at offset %d)", data[bad], bad)
		return &diags[0], false
	}
	return nil, fast
}

// refuseTooMany returns the error of a file that holds too many nodes for
// the YAML library to see it; nil otherwise.
func refuseTooMany(file string, data []byte, lim Limits) *diag.Diagnostic {
	var diags diag.Diagnostics
	// The YAML library builds a document's whole tree before anything of
	// ours sees it, so the number of nodes is bounded from the bytes
	// first (count.go).
	if n, at := countNodes(data, lim.MaxNodes); n > lim.MaxNodes {
		p := newLineIndex(data).posOfByte(at)
		diags = diags.Errorf(diag.Range{File: file, Start: p, End: p}, "", CodeTooMany,
			"file holds more than %d YAML nodes (scalars, lists and maps; the count passed the limit here)", lim.MaxNodes)
		return &diags[0]
	}
	return nil
}

// convertDocument converts one document's root, adding its nodes to
// *nodes, the count of the file so far. Conversion shares anchored nodes
// instead of copying them, so it is linear in the written document
// whatever its aliases do; only a document with aliases needs the
// expansion and cycle check, which runs before anyone walks the shared
// tree.
func (c *converter) convertDocument(root *yaml.Node, nodes *int) *Node {
	n := c.convert(root, 0)
	// The scan before parsing bounds what the library accepts; this count
	// holds the limit whatever the scan misjudged.
	if *nodes += c.nodes; *nodes > c.lim.MaxNodes && !c.diags.HasErrors() {
		c.diags = c.diags.Errorf(c.rangeOf(root), "", CodeTooMany, "file holds more than %d YAML nodes", c.lim.MaxNodes)
	}
	if c.sawAlias && !c.diags.HasErrors() {
		c.size, c.active = map[*yaml.Node]int{}, map[*yaml.Node]bool{}
		if c.expandedSize(root, 0) > c.lim.MaxExpandedNodes && !c.diags.HasErrors() {
			c.diags = c.diags.Errorf(c.rangeOf(root), "", CodeAliasBomb,
				"aliases expand this document to more than %d nodes", c.lim.MaxExpandedNodes)
		}
	}
	return n
}

// scanText reads data once for two answers. bad is the offset of the
// first byte that makes the data no text (invalid UTF-8, or a C0 control
// other than tab, CR and LF), or -1. fast reports whether the text holds
// nothing that the fast reader leaves to the library outright: a tab, a
// carriage return, a character the library refuses (DEL, C1 controls,
// U+FFFE, U+FFFF), breaks lines at (NEL, LS, PS) or skips at a line's
// start (U+FEFF, a byte order mark among them).
func scanText(data []byte) (bad int, fast bool) {
	fast = true
	for i := 0; i < len(data); {
		b := data[i]
		if b < utf8.RuneSelf {
			if b < 0x20 {
				if b != '\t' && b != '\n' && b != '\r' {
					return i, false
				}
				fast = fast && b == '\n'
			} else if b == 0x7F {
				fast = false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i, false
		}
		if r < 0xA0 || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF {
			fast = false
		}
		i += size
	}
	return -1, fast
}

type converter struct {
	file string
	idx  *lineIndex
	lim  Limits
	// memo holds the converted anchored nodes, the only ones an alias can
	// reach.
	memo     map[*yaml.Node]*Node
	sawAlias bool
	// nodes counts the nodes converted (shared ones once).
	nodes  int
	size   map[*yaml.Node]int
	active map[*yaml.Node]bool
	diags  diag.Diagnostics
}

func (c *converter) rangeOf(n *yaml.Node) diag.Range {
	start := c.idx.pos(n.Line, n.Column)
	end := start
	if n.Kind == yaml.ScalarNode && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		end = scalarEnd(start, n.Value, n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0)
	}
	return diag.Range{File: c.file, Start: start, End: end}
}

// scalarEnd is the end of the range of a plain or quoted scalar of value
// that starts at start: past its text (and quotes) when it is on one
// line, start itself otherwise. Both readers give ranges by this rule.
func scalarEnd(start diag.Pos, value string, quoted bool) diag.Pos {
	if strings.IndexByte(value, '\n') >= 0 {
		return start
	}
	w := utf8.RuneCountInString(value)
	if quoted {
		w += 2
	}
	return diag.Pos{Line: start.Line, Column: start.Column + w, Byte: start.Byte + len(value)}
}

// expandedSize counts the nodes of the tree with every alias expanded,
// memoised per node so that the count itself is linear in the tree. It
// stops early past the limit and reports recursive aliases.
func (c *converter) expandedSize(n *yaml.Node, depth int) int {
	if s, ok := c.size[n]; ok {
		return s
	}
	if c.active[n] {
		c.diags = c.diags.Errorf(c.rangeOf(n), "", CodeAliasCycle, "alias refers to a node that contains it")
		return math.MaxInt32
	}
	if depth > c.lim.MaxDepth {
		return 1 // reported by convert
	}
	c.active[n] = true
	total := 1
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		total = c.expandedSize(n.Alias, depth+1)
	} else {
		for _, ch := range n.Content {
			total += c.expandedSize(ch, depth+1)
			if total > c.lim.MaxExpandedNodes {
				break
			}
		}
	}
	delete(c.active, n)
	c.size[n] = total
	return total
}

func (c *converter) convert(n *yaml.Node, depth int) *Node {
	if depth > c.lim.MaxDepth {
		c.diags = c.diags.Errorf(c.rangeOf(n), "", CodeTooDeep, "nesting is deeper than %d levels", c.lim.MaxDepth)
		return nil
	}
	if n.Kind == yaml.AliasNode {
		c.sawAlias = true
		if n.Alias == nil {
			return nil
		}
		return c.convert(n.Alias, depth)
	}
	if n.Anchor != "" {
		if out, ok := c.memo[n]; ok {
			return out
		}
	}
	out := &Node{Range: c.rangeOf(n), Tag: n.ShortTag(), Anchor: n.Anchor, Tagged: n.Style&yaml.TaggedStyle != 0}
	c.nodes++
	if n.Anchor != "" {
		c.memo[n] = out
	}
	switch n.Kind {
	case yaml.ScalarNode:
		out.Kind = Scalar
		out.Value = n.Value
		out.Quoted = n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0
		if out.Quoted && n.Tag == "" {
			out.Tag = TagStr
		}
		if len(n.Value) > c.lim.MaxScalarBytes {
			c.diags = c.diags.Errorf(out.Range, "", CodeTooLong, "scalar is %d bytes; the limit is %d", len(n.Value), c.lim.MaxScalarBytes)
			out.Value = ""
		}
	case yaml.SequenceNode:
		out.Kind = Sequence
		if len(n.Content) > c.lim.MaxItems {
			c.diags = c.diags.Errorf(out.Range, "", CodeTooLong, "list has %d items; the limit is %d", len(n.Content), c.lim.MaxItems)
			return out
		}
		out.Content = make([]*Node, 0, len(n.Content))
		for _, ch := range n.Content {
			if cc := c.convert(ch, depth+1); cc != nil {
				out.Content = append(out.Content, cc)
			}
		}
	case yaml.MappingNode:
		out.Kind = Mapping
		if len(n.Content)/2 > c.lim.MaxItems {
			c.diags = c.diags.Errorf(out.Range, "", CodeTooLong, "map has %d entries; the limit is %d", len(n.Content)/2, c.lim.MaxItems)
			return out
		}
		c.convertMapping(n, out, depth)
	default:
		return nil
	}
	return out
}

func (c *converter) convertMapping(n *yaml.Node, out *Node, depth int) {
	var merged []*Node // pairs brought in by merge keys, applied after explicit ones
	out.Content = make([]*Node, 0, len(n.Content))
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merged = append(merged, c.mergeSources(v, depth)...)
			continue
		}
		kk := c.convert(k, depth+1)
		vv := c.convert(v, depth+1)
		if kk == nil {
			continue
		}
		if vv == nil {
			vv = &Node{Kind: Scalar, Tag: TagNull, Range: kk.Range}
		}
		out.Content = append(out.Content, kk, vv)
	}
	if len(merged) == 0 {
		return
	}
	have := map[string]bool{}
	for i := 0; i < len(out.Content); i += 2 {
		have[out.Content[i].Value] = true
	}
	for i := 0; i+1 < len(merged); i += 2 {
		if key := merged[i].Value; !have[key] {
			have[key] = true
			out.Content = append(out.Content, merged[i], merged[i+1])
		}
	}
}

// mergeSources returns the pairs that a merge key's value brings in, earlier
// sources taking precedence as YAML's merge key type specifies.
func (c *converter) mergeSources(v *yaml.Node, depth int) []*Node {
	var srcs []*yaml.Node
	if v.Kind == yaml.SequenceNode {
		srcs = v.Content
	} else {
		srcs = []*yaml.Node{v}
	}
	var pairs []*Node
	for _, s := range srcs {
		m := c.convert(s, depth+1)
		if m == nil || m.Kind != Mapping {
			c.diags = c.diags.Errorf(c.rangeOf(s), "", CodeBadMerge, "a merge key (<<) takes a map or a list of maps, found %s", m.Describe())
			continue
		}
		pairs = append(pairs, m.Content...)
	}
	return pairs
}

// lineIndex maps 1-based line and column (in runes) to byte offsets.
// Nodes arrive mostly in document order, so it remembers the last
// position and walks on from there: a long flow-style line costs one pass,
// not one pass per node on it.
type lineIndex struct {
	data   []byte
	starts []int
	last   diag.Pos
}

func newLineIndex(data []byte) *lineIndex {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{data: data, starts: starts}
}

func (x *lineIndex) pos(line, col int) diag.Pos {
	if line < 1 || line > len(x.starts) {
		return diag.Pos{Line: max(line, 1), Column: max(col, 1)}
	}
	off, i := x.starts[line-1], 1
	if x.last.Line == line && x.last.Column <= col {
		off, i = x.last.Byte, x.last.Column
	}
	for ; i < col && off < len(x.data) && x.data[off] != '\n'; i++ {
		if x.data[off] < utf8.RuneSelf {
			off++
			continue
		}
		_, size := utf8.DecodeRune(x.data[off:])
		off += size
	}
	x.last = diag.Pos{Line: line, Column: i, Byte: off}
	return diag.Pos{Line: line, Column: max(col, 1), Byte: off}
}

func (x *lineIndex) posOfByte(off int) diag.Pos {
	lo, hi := 0, len(x.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if x.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	col := utf8.RuneCount(x.data[x.starts[lo]:off]) + 1
	return diag.Pos{Line: lo + 1, Column: col, Byte: off}
}

func inf(sign int) float64 { return math.Inf(sign) }
func nan() float64         { return math.NaN() }

// Marshal renders plain Go values (as Interface returns them) as YAML text,
// with map keys sorted. It is for writing files xosplan owns and messages
// to scripts, never for user input.
func Marshal(v any) ([]byte, error) {
	b, err := yaml.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("rendering YAML: %w", err)
	}
	return b, nil
}

// ctxReader reads r until ctx ends, then fails.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (cr ctxReader) Read(p []byte) (int, error) {
	if err := cr.ctx.Err(); err != nil {
		return 0, err
	}
	return cr.r.Read(p)
}
