package yamlsrc

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/xosplan/xosplan/pkg/diag"
)

// The fast reader reads the YAML that templates are written in straight
// into our Node tree, without the YAML library's tree (see doc.go for
// why). It gives exactly the tree, ranges and diagnostics that the
// library path (parse.go) gives, or it gives up and the whole file goes
// to the library path: a give-up ("bail") costs only time. It reads one
// document of block mappings and sequences, flow collections, plain
// scalars (over several lines in a block), quoted scalars on one line
// and literal or folded block scalars, with comments; it gives up on
// anything else (anchors, aliases, tags, merge keys, explicit keys,
// directives, several documents, tabs, carriage returns, quoted
// scalars over several lines, a limit reached) and on every syntax
// error, so that every diagnostic of a bad file still comes from the
// library path. Where the library's scanner has a quirk, the reader
// either follows it step for step (block scalars, plain scalar folding,
// the position of an empty value) or gives up.

// Largest sizes of the reader's allocation slabs; a small file gets
// smaller ones (slabSizes), so that a tree kept does not keep much more.
const (
	nodeSlab    = 1024
	contentSlab = 4096
)

// slabSizes returns the node and Content slab sizes for a file of size
// bytes: about one node per 16 bytes (flow style takes about 7 a node,
// block style more), within the largest sizes.
func slabSizes(size int) (nodes, content int) {
	return min(max(size/16, 16), nodeSlab), min(max(size/16, 64), contentSlab)
}

// fastDepth bounds the reader's recursion whatever Limits.MaxDepth says;
// deeper files go to the library path.
const fastDepth = 1000

// fastBail is the panic value of a give-up; fastCanceled of a context
// that ended.
type (
	fastBail     struct{}
	fastCanceled struct{}
)

type fastReader struct {
	ctx      context.Context
	src      string
	file     string
	lim      Limits
	maxDepth int
	// i is the cursor; line (1-based) and ls (its first byte) describe
	// the line the cursor is on, prevLs the line before.
	i, line, ls, prevLs int
	// The column of colOff on line colLs is colN (0-based, in runes).
	colLs, colOff, colN int
	nodes               int
	// extra counts what countNodes, the library path's count from the
	// bytes, adds to the tree's nodes: the fast reader holds that count
	// to the limit too, so that it accepts only what that count passes.
	extra int
	slab  []Node
	// The sizes of the next slabs of nodes and of Content pointers.
	nodeSlab, ptrSlab int
	arena             []*Node
	stack             []*Node
	empty             []*Node
	buf               []byte
	fault             any
}

// readFast reads data, which refuseUnreadable passed as fast, with the
// fast reader. ok is false when it gave up: the caller then reads data on
// the library path.
func readFast(ctx context.Context, file string, data []byte, lim Limits) ([]*Node, diag.Diagnostics, bool) {
	return newFastReader(ctx, file, data, lim).read()
}

func newFastReader(ctx context.Context, file string, data []byte, lim Limits) *fastReader {
	r := &fastReader{ctx: ctx, src: string(data), file: file, lim: lim, maxDepth: min(lim.MaxDepth, fastDepth), line: 1, empty: make([]*Node, 0)}
	r.nodeSlab, r.ptrSlab = slabSizes(len(data))
	return r
}

// read reads the document (see readFast).
func (r *fastReader) read() (docs []*Node, diags diag.Diagnostics, ok bool) {
	ctx, file := r.ctx, r.file
	defer func() {
		if v := recover(); v != nil {
			docs, diags, ok = nil, nil, false
			switch v.(type) {
			case fastBail:
			case fastCanceled:
				diags = diags.Errorf(diag.Range{File: file, Start: diag.Pos{Line: 1, Column: 1}}, "", CodeCanceled, "reading stopped: %v", context.Cause(ctx))
				ok = true
			default:
				// A fault of the reader: the library path reads the file,
				// and the fuzz test, which looks here, fails.
				r.fault = v
			}
		}
	}()
	if ctx.Err() != nil {
		panic(fastCanceled{})
	}
	root := r.document()
	return []*Node{root}, nil, true
}

func (r *fastReader) bail() { panic(fastBail{}) }

// projectCount gives the file to the library path early when, at the
// density of what it read so far, the file holds more than twice the
// node limit: the library path's count from the bytes refuses such a
// file at a fraction of the cost of reading it up to the limit (a dense
// 16 MiB file of flow lists: 0.14 s and 90 MB against 0.54 s and 527 MB,
// BenchmarkValidateDenseFile). A file that only looks dense at its start
// costs speed, never a different result.
func (r *fastReader) projectCount() {
	if read := int64(r.i); read > 0 && int64(r.nodes+r.extra)*int64(len(r.src)) > 2*int64(r.lim.MaxNodes)*read {
		r.bail()
	}
}

// document reads the stream's one document.
func (r *fastReader) document() *Node {
	p, ind := r.peekLine(0)
	markerLine := 0
	if ind == 0 && r.marker(p) {
		if r.src[p] != '-' {
			r.bail()
		}
		r.advance(p + 3)
		markerLine = r.line
		r.endLine()
		p, ind = r.peekContent(r.i)
	}
	if ind < 0 || r.src[p] == '%' {
		r.bail() // an empty document or a directive
	}
	r.advance(p)
	if r.line > 1 && (r.src[p] == '|' || r.src[p] == '>') {
		r.bail() // countNodes reads it as plain text
	}
	root := r.blockAt(0, -1)
	// countNodes counts one node at the end of the first line when the
	// root starts on a later one, and one at the end of a "---" line
	// after the first: for a block collection root, the first of those
	// is the collection itself.
	pending := 0
	if root.Range.Start.Line > 1 {
		pending++
	}
	if markerLine > 1 {
		pending++
	}
	if pending > 0 && r.blockCollection(root) {
		pending--
	}
	for range pending {
		r.addExtra()
	}
	if _, ind := r.peekContent(r.i); ind >= 0 {
		r.bail()
	}
	return root
}

// marker reports whether a "---" or "..." at p starts a line.
func (r *fastReader) marker(p int) bool {
	s := r.src[p:]
	return (strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...")) && r.blankz(p+3)
}

// peekContent finds the next line, from the one holding from on (from
// is its start or a line end), that holds something other than spaces
// and a comment; it returns the offset of its first other byte and its
// indentation, or -1 at the end of the data. A document marker there
// is a give-up.
func (r *fastReader) peekContent(from int) (int, int) {
	p, ind := r.peekLine(from)
	if ind == 0 && r.marker(p) {
		r.bail()
	}
	return p, ind
}

// peekLine is peekContent that leaves document markers to the caller.
func (r *fastReader) peekLine(from int) (int, int) {
	s := r.src
	p := from
	for {
		if p < len(s) && s[p] == '\n' {
			p++
		}
		start := p
		for p < len(s) && s[p] == ' ' {
			p++
		}
		if p >= len(s) {
			return p, -1
		}
		switch s[p] {
		case '\n':
			continue
		case '#':
			k := strings.IndexByte(s[p:], '\n')
			if k < 0 {
				return len(s), -1
			}
			p += k
			continue
		}
		return p, p - start
	}
}

// advance moves the cursor forward to p, keeping the line count.
func (r *fastReader) advance(p int) {
	seg := r.src[r.i:p]
	if n := strings.Count(seg, "\n"); n > 0 {
		r.line += n
		last := r.i + strings.LastIndexByte(seg, '\n') + 1
		if n == 1 {
			r.prevLs = r.ls
		} else {
			r.prevLs = r.i + strings.LastIndexByte(r.src[r.i:last-1], '\n') + 1
		}
		r.ls = last
	}
	r.i = p
}

// newline moves the cursor past the line break at it.
func (r *fastReader) newline() {
	r.i++
	r.line++
	r.prevLs, r.ls = r.ls, r.i
}

// blankz reports whether p is a space, a line end or the end.
func (r *fastReader) blankz(p int) bool {
	return p >= len(r.src) || r.src[p] == ' ' || r.src[p] == '\n'
}

func (r *fastReader) skipSpaces() {
	for r.i < len(r.src) && r.src[r.i] == ' ' {
		r.i++
	}
}

// atLineEnd skips spaces and a comment and reports whether the line ends
// there, leaving the cursor at the line end if so.
func (r *fastReader) atLineEnd() bool {
	start := r.i
	r.skipSpaces()
	if r.i >= len(r.src) || r.src[r.i] == '\n' {
		return true
	}
	if r.src[r.i] == '#' {
		if r.i == start && r.i > 0 && r.src[r.i-1] != ' ' && r.src[r.i-1] != '\n' {
			r.bail() // the library reads "]#" as a comment; keep it simple
		}
		if j := strings.IndexByte(r.src[r.i:], '\n'); j >= 0 {
			r.i += j
		} else {
			r.i = len(r.src)
		}
		return true
	}
	return false
}

// endLine requires the rest of the line to be spaces and a comment.
func (r *fastReader) endLine() {
	if !r.atLineEnd() {
		r.bail()
	}
}

// pos is the position of offset p on the cursor's line.
func (r *fastReader) pos(p int) diag.Pos {
	if r.colLs != r.ls || r.colOff > p || r.colOff < r.ls {
		r.colLs, r.colOff, r.colN = r.ls, r.ls, 0
	}
	n := r.colN
	for j := r.colOff; j < p; j++ {
		if r.src[j]&0xC0 != 0x80 {
			n++
		}
	}
	r.colOff, r.colN = p, n
	return diag.Pos{Line: r.line, Column: n + 1, Byte: p}
}

// node allocates a node from the slab, counting it against the limit
// and checking the context now and then.
func (r *fastReader) node(kind Kind, tag string, at diag.Pos) *Node {
	if len(r.slab) == 0 {
		r.slab = make([]Node, r.nodeSlab)
		r.nodeSlab = min(2*r.nodeSlab, nodeSlab)
	}
	n := &r.slab[0]
	r.slab = r.slab[1:]
	r.nodes++
	r.holdCount()
	if r.nodes&4095 == 0 {
		if r.ctx.Err() != nil {
			panic(fastCanceled{})
		}
		r.projectCount()
	}
	n.Kind, n.Tag = kind, tag
	n.Range = diag.Range{File: r.file, Start: at, End: at}
	return n
}

// scalar makes a scalar node of value written from offset p.
func (r *fastReader) scalar(p int, value string, quoted bool) *Node {
	tag := TagStr
	if !quoted {
		tag = resolvePlain(value)
		if tag == "!!merge" {
			r.bail()
		}
	}
	if len(value) > r.lim.MaxScalarBytes {
		r.bail()
	}
	start := r.pos(p)
	n := r.node(Scalar, tag, start)
	n.Value, n.Quoted = value, quoted
	n.Range.End = scalarEnd(start, value, quoted)
	return n
}

// null is the empty scalar the library makes where a value is missing.
func (r *fastReader) null(at diag.Pos) *Node {
	return r.node(Scalar, TagNull, at)
}

// content moves the children pushed since base into the node's Content,
// a slice of a shared backing array. per is 2 for a mapping's pairs.
func (r *fastReader) content(base, per int) []*Node {
	items := r.stack[base:]
	n := len(items)
	if n/per > r.lim.MaxItems {
		r.bail()
	}
	if n == 0 {
		r.stack = r.stack[:base]
		return r.empty
	}
	var out []*Node
	if n > len(r.arena) {
		if n > r.ptrSlab/4 {
			out = make([]*Node, n)
		} else {
			r.arena = make([]*Node, r.ptrSlab)
			r.ptrSlab = min(2*r.ptrSlab, contentSlab)
		}
	}
	if out == nil {
		out = r.arena[:n:n]
		r.arena = r.arena[n:]
	}
	copy(out, items)
	r.stack = r.stack[:base]
	return out
}

func (r *fastReader) enter(depth int) {
	if depth > r.maxDepth {
		r.bail()
	}
}

// blockAt reads the block node that starts at the cursor, which only
// spaces or block entry indicators precede on its line. parent is the
// indentation of the enclosing block collection (-1 at the root). It
// returns with the cursor at the end of the node's last line.
func (r *fastReader) blockAt(depth, parent int) *Node {
	r.enter(depth)
	s := r.src
	c := r.i - r.ls
	switch ch := s[r.i]; {
	case ch == '-' && r.blankz(r.i+1):
		return r.blockSeq(depth, c, false)
	case ch == '"' || ch == '\'':
		p := r.i
		v := r.quoted()
		if r.keyColon(p) {
			return r.blockMap(depth, c, v)
		}
		r.endLine()
		return v
	case ch == '[' || ch == '{' || ch == '|' || ch == '>':
		return r.inlineValue(depth, parent)
	case r.plainStart():
		p := r.i
		end, atColon := r.plainBlock()
		v := r.scalar(p, s[p:end], false)
		if atColon {
			if r.i-p > 1000 {
				r.bail() // past the library's simple key length
			}
			r.i++
			return r.blockMap(depth, c, v)
		}
		r.plainEnd(v, p, parent)
		return v
	}
	r.bail()
	return nil
}

// blockAtBelow is blockAt for a value on a line below its key or entry
// indicator. countNodes counts the empty value that the indicator's line
// seems to end with, and then the value below: one more than the tree
// when the value is not a block collection.
// countNodes reads a block scalar there as plain text, line by line: the
// fast reader leaves that to the library.
func (r *fastReader) blockAtBelow(depth, parent int) *Node {
	if c := r.src[r.i]; c == '|' || c == '>' {
		r.bail()
	}
	n := r.blockAt(depth, parent)
	r.countExtra(n)
	return n
}

// countExtra adds one to the count of countNodes when n, a value below
// its indicator's line, is a scalar or a flow collection.
func (r *fastReader) countExtra(n *Node) {
	if !r.blockCollection(n) {
		r.addExtra()
	}
}

// blockCollection reports whether n, a node the reader made, is a block
// mapping or sequence (not a scalar nor a flow collection).
func (r *fastReader) blockCollection(n *Node) bool {
	if n.Kind == Scalar {
		return false
	}
	c := r.src[n.Range.Start.Byte]
	return c != '[' && c != '{'
}

func (r *fastReader) addExtra() {
	r.extra++
	r.holdCount()
}

// holdCount gives up when the nodes made and countNodes' extra ones pass
// the node limit.
func (r *fastReader) holdCount() {
	if r.nodes+r.extra > r.lim.MaxNodes {
		r.bail()
	}
}

// keyColon reports, after a quoted scalar that started at p, whether a
// ':' that makes it a block mapping key follows; it leaves the cursor
// after the ':' if so.
func (r *fastReader) keyColon(p int) bool {
	j := r.i
	for j < len(r.src) && r.src[j] == ' ' {
		j++
	}
	if j < len(r.src) && r.src[j] == ':' && r.blankz(j+1) {
		if j-p > 1000 {
			r.bail()
		}
		r.i = j + 1
		return true
	}
	return false
}

// blockMap reads a block mapping of indentation c whose first key has
// been read, the cursor after its ':'.
func (r *fastReader) blockMap(depth, c int, key *Node) *Node {
	m := r.node(Mapping, TagMap, key.Range.Start)
	base := len(r.stack)
	for {
		r.stack = append(r.stack, key, r.mapValue(depth+1, c))
		p, ind := r.peekContent(r.i)
		if ind < c {
			break
		}
		if ind > c {
			r.bail()
		}
		r.advance(p)
		key = r.blockKey()
	}
	m.Content = r.content(base, 2)
	return m
}

// blockKey reads a key of a block mapping and its ':'.
func (r *fastReader) blockKey() *Node {
	s := r.src
	p := r.i
	switch {
	case s[p] == '"' || s[p] == '\'':
		k := r.quoted()
		if !r.keyColon(p) {
			r.bail()
		}
		return k
	case r.plainStart():
		end, atColon := r.plainBlock()
		if !atColon || r.i-p > 1000 {
			r.bail()
		}
		k := r.scalar(p, s[p:end], false)
		r.i++
		return k
	}
	r.bail()
	return nil
}

// mapValue reads the value after a block mapping key's ':' (the cursor
// after it) in a mapping of indentation c.
func (r *fastReader) mapValue(depth, c int) *Node {
	r.enter(depth)
	colon := r.i
	if !r.atLineEnd() {
		return r.inlineValue(depth, c)
	}
	p, ind := r.peekContent(r.i)
	switch {
	case ind > c:
		r.advance(p)
		return r.blockAtBelow(depth, c)
	case ind == c && r.src[p] == '-' && r.blankz(p+1):
		r.advance(p)
		return r.blockSeq(depth, c, true)
	}
	return r.null(r.pos(colon))
}

// blockSeq reads a block sequence whose entries' '-' are at column c;
// indentless is set for one that is a mapping value at the mapping's
// indentation.
func (r *fastReader) blockSeq(depth, c int, indentless bool) *Node {
	sq := r.node(Sequence, TagSeq, r.pos(r.i))
	base := len(r.stack)
	for {
		r.enter(depth + 1)
		r.i++ // the '-'
		dash := r.i
		var v *Node
		if r.atLineEnd() {
			p, ind := r.peekContent(r.i)
			if ind > c {
				r.advance(p)
				v = r.blockAtBelow(depth+1, c)
			} else {
				v = r.null(r.pos(dash))
			}
		} else {
			v = r.blockAt(depth+1, c)
		}
		r.stack = append(r.stack, v)
		p, ind := r.peekContent(r.i)
		if ind < c {
			break
		}
		if ind > c {
			r.bail()
		}
		if r.src[p] != '-' || !r.blankz(p+1) {
			if indentless {
				break
			}
			r.bail()
		}
		r.advance(p)
	}
	sq.Content = r.content(base, 1)
	return sq
}

// inlineValue reads a value that starts at the cursor after a key's ':'
// or at a line's start (not a block collection) and ends its line; a
// block scalar's body follows. parent is the indentation of the
// enclosing block collection.
func (r *fastReader) inlineValue(depth, parent int) *Node {
	s := r.src
	var v *Node
	switch ch := s[r.i]; {
	case ch == '[' || ch == '{':
		v = r.flow(depth)
	case ch == '"' || ch == '\'':
		v = r.quoted()
	case ch == '|' || ch == '>':
		return r.blockScalar(parent)
	case r.plainStart():
		p := r.i
		end, atColon := r.plainBlock()
		if atColon {
			r.bail()
		}
		v = r.scalar(p, s[p:end], false)
		r.plainEnd(v, p, parent)
		return v
	default:
		r.bail()
	}
	r.endLine()
	return v
}

// plainStart reports whether a plain scalar starts at the cursor (the
// library's rule, less the '?' and ':' it also allows in a block).
func (r *fastReader) plainStart() bool {
	switch r.src[r.i] {
	case '-':
		return !r.blankz(r.i + 1)
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ', '\n':
		return false
	}
	return true
}

// plainBlock scans a plain scalar in a block to the end of its text on
// this line: before ": ", " #" or the line end. It returns the end of
// the text and whether a ':' ends it, leaving the cursor at the ':' or
// after the text's trailing spaces.
func (r *fastReader) plainBlock() (int, bool) {
	s := r.src
	end := r.i
	for j := r.i; j < len(s); j++ {
		switch s[j] {
		case '\n':
			r.i = j
			return end, false
		case ' ':
			continue
		case '#':
			if s[j-1] == ' ' {
				r.i = j
				return end, false
			}
		case ':':
			if r.blankz(j + 1) {
				r.i = j
				return end, true
			}
		}
		end = j + 1
	}
	r.i = len(s)
	return end, false
}

// plainEnd ends the line of plain scalar v, which starts at p, in a
// block whose innermost collection is indented by parent, and reads the
// lines that continue it: lines indented past parent, up to a comment,
// folded as the library folds them (a line break is a space, n breaks
// n-1 newlines).
func (r *fastReader) plainEnd(v *Node, p, parent int) {
	s := r.src
	if r.i < len(s) && s[r.i] == '#' {
		r.endLine() // a comment ends the scalar
		return
	}
	r.endLine()
	// countNodes takes a line indented past the scalar's own column-1,
	// when the scalar starts its line, as a continuation; the library
	// takes one indented past parent. Where they differ, give up.
	above := parent
	if strings.TrimLeft(s[r.ls:p], " ") == "" {
		above = max(above, p-r.ls-1)
	}
	var b []byte
	q := r.i
	for q < len(s) {
		breaks, k := 0, q
		for k < len(s) && (s[k] == '\n' || s[k] == ' ') {
			if s[k] == '\n' {
				breaks++
				q = k
			}
			k++
		}
		if k >= len(s) {
			break
		}
		col := k - q - 1
		if col <= parent || s[k] == '#' {
			break
		}
		if col <= above || col == 0 && r.marker(k) {
			r.bail()
		}
		// A continuation line: its text up to " #", ": " or the end.
		end := k
		j := k
		for ; j < len(s) && s[j] != '\n'; j++ {
			c := s[j]
			if c == ' ' {
				continue
			}
			if c == '#' && s[j-1] == ' ' {
				break
			}
			if c == ':' && r.blankz(j+1) {
				r.bail() // a key after a multi-line scalar: an error
			}
			end = j + 1
		}
		if b == nil {
			b = append(r.buf[:0], v.Value...)
		}
		if breaks == 1 {
			b = append(b, ' ')
		}
		for ; breaks > 1; breaks-- {
			b = append(b, '\n')
		}
		b = append(b, s[k:end]...)
		q = j
		if j < len(s) && s[j] == '#' {
			break
		}
	}
	if b == nil {
		return
	}
	r.buf = b
	value := string(b)
	if len(value) > r.lim.MaxScalarBytes {
		r.bail()
	}
	v.Value, v.Tag = value, resolvePlain(value)
	v.Range.End = scalarEnd(v.Range.Start, value, false)
	r.advance(q)
	r.endLine()
}

// quoted reads a quoted scalar that ends on its line.
func (r *fastReader) quoted() *Node {
	s := r.src
	p := r.i
	q := s[p]
	var value string
	if q == '\'' {
		j := p + 1
		for {
			k := strings.IndexAny(s[j:], "'\n")
			if k < 0 || s[j+k] == '\n' {
				r.bail()
			}
			j += k
			if j+1 < len(s) && s[j+1] == '\'' {
				j += 2
				continue
			}
			break
		}
		value = s[p+1 : j]
		if strings.Contains(value, "''") {
			value = strings.ReplaceAll(value, "''", "'")
		}
		r.i = j + 1
	} else {
		j := p + 1
		for j < len(s) && s[j] != '"' && s[j] != '\\' && s[j] != '\n' {
			j++
		}
		if j < len(s) && s[j] == '"' {
			value = s[p+1 : j]
			r.i = j + 1
		} else {
			value = r.unescape(p + 1)
		}
	}
	return r.scalar(p, value, true)
}

// unescape reads a double-quoted scalar with escapes from p, after the
// quote, to its closing quote on the same line.
func (r *fastReader) unescape(p int) string {
	s := r.src
	b := r.buf[:0]
	j := p
	for {
		if j >= len(s) || s[j] == '\n' {
			r.bail()
		}
		c := s[j]
		if c == '"' {
			break
		}
		if c != '\\' {
			b = append(b, c)
			j++
			continue
		}
		if j+1 >= len(s) {
			r.bail()
		}
		code := 0
		switch s[j+1] {
		case '0':
			b = append(b, 0)
		case 'a':
			b = append(b, '\x07')
		case 'b':
			b = append(b, '\x08')
		case 't':
			b = append(b, '\x09')
		case 'n':
			b = append(b, '\x0A')
		case 'v':
			b = append(b, '\x0B')
		case 'f':
			b = append(b, '\x0C')
		case 'r':
			b = append(b, '\x0D')
		case 'e':
			b = append(b, '\x1B')
		case ' ':
			b = append(b, ' ')
		case '"':
			b = append(b, '"')
		case '\'':
			b = append(b, '\'')
		case '\\':
			b = append(b, '\\')
		case 'N':
			b = append(b, "\u0085"...)
		case '_':
			b = append(b, "\u00a0"...)
		case 'L':
			b = append(b, "\u2028"...)
		case 'P':
			b = append(b, "\u2029"...)
		case 'x':
			code = 2
		case 'u':
			code = 4
		case 'U':
			code = 8
		default:
			r.bail() // an unknown escape, or a line break escaped
		}
		j += 2
		if code > 0 {
			v := 0
			for k := 0; k < code; k++ {
				if j+k >= len(s) {
					r.bail()
				}
				h := s[j+k]
				switch {
				case h >= '0' && h <= '9':
					v = v<<4 + int(h-'0')
				case h >= 'a' && h <= 'f':
					v = v<<4 + int(h-'a'+10)
				case h >= 'A' && h <= 'F':
					v = v<<4 + int(h-'A'+10)
				default:
					r.bail()
				}
			}
			if v >= 0xD800 && v <= 0xDFFF || v > 0x10FFFF {
				r.bail()
			}
			b = utf8.AppendRune(b, rune(v))
			j += code
		}
	}
	r.buf = b
	r.i = j + 1
	return string(b)
}

// flow reads a flow collection at the cursor.
func (r *fastReader) flow(depth int) *Node {
	r.enter(depth)
	s := r.src
	open := s[r.i]
	var n *Node
	if open == '[' {
		n = r.node(Sequence, TagSeq, r.pos(r.i))
	} else {
		n = r.node(Mapping, TagMap, r.pos(r.i))
	}
	r.i++
	base := len(r.stack)
	r.flowSpace()
	closing, per := byte(']'), 1
	if open == '{' {
		closing, per = '}', 2
	}
	if r.i < len(s) && s[r.i] == closing {
		r.i++
		n.Content = r.content(base, per)
		return n
	}
	for {
		if open == '[' {
			r.stack = append(r.stack, r.flowItem(depth+1, true))
			r.flowSpace()
		} else {
			k := r.flowScalar()
			if k == nil {
				r.bail()
			}
			kp := k.Range.Start.Byte
			for r.i < len(s) && s[r.i] == ' ' {
				r.i++
			}
			if r.i >= len(s) || s[r.i] != ':' || r.i-kp > 1000 {
				r.bail()
			}
			r.i++
			r.flowSpace()
			if r.i >= len(s) || s[r.i] == ',' || s[r.i] == '}' {
				r.bail() // an empty value
			}
			r.stack = append(r.stack, k, r.flowItem(depth+1, false))
			r.flowSpace()
		}
		if r.i >= len(s) {
			r.bail()
		}
		switch s[r.i] {
		case closing:
			r.i++
			n.Content = r.content(base, per)
			return n
		case ',':
			r.i++
			r.flowSpace()
			if r.i >= len(s) || s[r.i] == closing || s[r.i] == ',' {
				r.bail()
			}
		default:
			r.bail()
		}
	}
}

// flowItem reads an entry of a flow sequence (inSeq) or a value of a flow
// mapping.
func (r *fastReader) flowItem(depth int, inSeq bool) *Node {
	if r.i >= len(r.src) {
		r.bail()
	}
	if c := r.src[r.i]; c == '[' || c == '{' {
		return r.flow(depth)
	}
	r.enter(depth)
	v := r.flowScalar()
	if v == nil {
		r.bail()
	}
	j := r.i
	for j < len(r.src) && r.src[j] == ' ' {
		j++
	}
	if j >= len(r.src) || r.src[j] != ':' {
		return v
	}
	// A key in a flow sequence makes a map of one pair, which starts
	// where the key does.
	if !inSeq || j-v.Range.Start.Byte > 1000 {
		r.bail()
	}
	m := r.node(Mapping, TagMap, v.Range.Start)
	r.i = j + 1
	r.flowSpace()
	if r.i >= len(r.src) || r.src[r.i] == ',' || r.src[r.i] == ']' {
		r.bail() // an empty value
	}
	base := len(r.stack)
	r.stack = append(r.stack, v, r.flowItem(depth+1, false))
	m.Content = r.content(base, 2)
	return m
}

// flowScalar reads a quoted or plain scalar in a flow collection, or
// returns nil if none starts at the cursor.
func (r *fastReader) flowScalar() *Node {
	s := r.src
	if r.i >= len(s) {
		return nil
	}
	if c := s[r.i]; c == '"' || c == '\'' {
		return r.quoted()
	}
	if !r.plainStart() {
		return nil
	}
	p := r.i
	end := p
	j := p
	for ; j < len(s); j++ {
		c := s[j]
		if c == ' ' {
			continue
		}
		if c == '\n' || c == '#' && s[j-1] == ' ' || c == ':' && r.blankz(j+1) ||
			c == ',' || c == '[' || c == ']' || c == '{' || c == '}' {
			break
		}
		if c == '?' {
			r.bail()
		}
		end = j + 1
	}
	r.i = j
	if j >= len(s) {
		r.bail()
	}
	if s[j] == '\n' || s[j] == '#' {
		// The scalar would go on on the next line unless a flow
		// indicator comes first.
		q := j
		for q < len(s) {
			switch s[q] {
			case ' ', '\n':
				q++
				continue
			case '#':
				if s[q-1] == ' ' || s[q-1] == '\n' {
					k := strings.IndexByte(s[q:], '\n')
					if k < 0 {
						r.bail()
					}
					q += k
					continue
				}
			}
			break
		}
		if q >= len(s) || !(s[q] == ',' || s[q] == ']' || s[q] == '}') {
			r.bail()
		}
	}
	return r.scalar(p, s[p:end], false)
}

// flowSpace skips spaces, line breaks and comments in a flow collection.
func (r *fastReader) flowSpace() {
	s := r.src
	for r.i < len(s) {
		switch s[r.i] {
		case ' ':
			r.i++
		case '\n':
			r.newline()
			if r.marker(r.i) {
				r.bail()
			}
		case '#':
			if s[r.i-1] != ' ' && s[r.i-1] != '\n' {
				r.bail()
			}
			for r.i < len(s) && s[r.i] != '\n' {
				r.i++
			}
		default:
			return
		}
	}
}

// blockScalar reads a literal or folded block scalar, the library's
// yaml_parser_scan_block_scalar step for step. parent is the
// indentation of the enclosing block collection. It leaves the cursor at
// the end of the scalar's last line.
func (r *fastReader) blockScalar(parent int) *Node {
	s := r.src
	start := r.pos(r.i)
	literal := s[r.i] == '|'
	r.i++
	chomp, incr := 0, 0
	chompAt := func() {
		if r.i < len(s) && (s[r.i] == '+' || s[r.i] == '-') {
			chomp = 1
			if s[r.i] == '-' {
				chomp = -1
			}
			r.i++
		}
	}
	digitAt := func() {
		if r.i < len(s) && s[r.i] >= '0' && s[r.i] <= '9' {
			if s[r.i] == '0' {
				r.bail()
			}
			incr = int(s[r.i] - '0')
			r.i++
		}
	}
	if r.i < len(s) && (s[r.i] == '+' || s[r.i] == '-') {
		chompAt()
		digitAt()
	} else {
		digitAt()
		chompAt()
	}
	r.skipSpaces()
	if r.i < len(s) && s[r.i] == '#' {
		for r.i < len(s) && s[r.i] != '\n' {
			r.i++
		}
	}
	if r.i < len(s) && s[r.i] != '\n' {
		r.bail()
	}
	if r.i < len(s) {
		r.newline()
	}
	indent := 0
	if incr > 0 {
		if parent >= 0 {
			indent = parent + incr
		} else {
			indent = incr
		}
	}
	b := r.buf[:0]
	leadingBreak, leadingBlank := false, false
	trailing := 0
	breaks := func() {
		maxIndent := 0
		for {
			for (indent == 0 || r.i-r.ls < indent) && r.i < len(s) && s[r.i] == ' ' {
				r.i++
			}
			maxIndent = max(maxIndent, r.i-r.ls)
			if r.i >= len(s) || s[r.i] != '\n' {
				break
			}
			trailing++
			r.newline()
		}
		if indent == 0 {
			indent = max(maxIndent, parent+1, 1)
		}
	}
	breaks()
	for r.i-r.ls == indent && r.i < len(s) {
		trailingBlank := s[r.i] == ' '
		if !literal && !leadingBlank && !trailingBlank && leadingBreak {
			if trailing == 0 {
				b = append(b, ' ')
			}
		} else if leadingBreak {
			b = append(b, '\n')
		}
		leadingBreak = false
		for ; trailing > 0; trailing-- {
			b = append(b, '\n')
		}
		leadingBlank = s[r.i] == ' '
		j := strings.IndexByte(s[r.i:], '\n')
		if j < 0 {
			j = len(s) - r.i
		}
		b = append(b, s[r.i:r.i+j]...)
		r.i += j
		if r.i < len(s) {
			leadingBreak = true
			r.newline()
		}
		breaks()
	}
	if chomp != -1 && leadingBreak {
		b = append(b, '\n')
	}
	if chomp == 1 {
		for ; trailing > 0; trailing-- {
			b = append(b, '\n')
		}
	}
	r.buf = b
	if len(b) > r.lim.MaxScalarBytes {
		r.bail()
	}
	if r.i < len(s) {
		// Back to the end of the line before the one that ended the
		// scalar, which belongs to what follows.
		r.i = r.ls - 1
		r.line--
		r.ls = r.prevLs
	}
	n := r.node(Scalar, TagStr, start)
	n.Value, n.Quoted = string(b), true
	return n
}
