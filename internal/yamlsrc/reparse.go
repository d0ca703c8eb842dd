package yamlsrc

import (
	"bytes"

	"github.com/xosplan/xosplan/pkg/diag"
)

// Reparse is Parse of data for an editor that has just parsed old, the
// text before a change, into prev (Parse's tree, without diagnostics):
// when the change lies inside one entry of a block mapping, only that
// entry's lines are parsed again and the tree is rebuilt around them,
// the entries before it shared with prev and those after it copied with
// their positions moved. ok is false when the change cannot be handled
// so (it crosses entries, the file has anchors, aliases, directives or
// several documents, or the entry's new text is not one entry of the
// same indentation); the caller then parses data whole. When ok, the
// tree is the one Parse(file, data, lim) returns, and Parse would report
// nothing. prev is not changed.
//
// Parsing a 10,000-node template is most of checking it after each
// keystroke, and a keystroke changes one entry.
func Reparse(file string, prev *Node, old, data []byte, lim Limits) (root *Node, ok bool) {
	lim = lim.withDefaults(len(data))
	if prev == nil || prev.Kind != Mapping || len(data) > lim.MaxFileBytes || unsafeForReparse(old) || unsafeForReparse(data) {
		return nil, false
	}
	defer func() {
		// Like Parse, never a panic; the caller parses whole.
		if r := recover(); r != nil {
			root, ok = nil, false
		}
	}()
	p := commonPrefix(old, data)
	s := commonSuffix(old[p:], data[p:])
	path, oldEnd := pathToChange(old, prev, p, len(old)-s)
	if len(path) == 0 {
		return nil, false
	}
	last := path[len(path)-1]
	key := last.m.Content[2*last.i]
	start := lineStart(old, key.Range.Start.Byte)
	delta := len(data) - len(old)
	newEnd := oldEnd + delta
	if newEnd < start || newEnd > len(data) || (newEnd < len(data) && (newEnd == 0 || data[newEnd-1] != '\n')) {
		return nil, false
	}
	entry, ok := parseEntry(file, data, start, newEnd, key.Range.Start, lim)
	if !ok || len(path)+depthOf(entry) > lim.MaxDepth {
		return nil, false
	}
	lines := bytes.Count(data[start:newEnd], []byte("\n")) - bytes.Count(old[start:oldEnd], []byte("\n"))
	mv := mover{from: oldEnd, lines: lines, bytes: delta}
	root = mv.rebuild(prev, path, 0, entry)
	if n := countTree(root); n > lim.MaxNodes || n > lim.MaxExpandedNodes {
		return nil, false
	}
	return root, true
}

// pathToChange finds the deepest block-mapping entry of prev whose lines
// in old hold the change, from byte lo to byte hi: the path of mappings to
// it (empty when none holds it) and where its lines end in old.
func pathToChange(old []byte, prev *Node, lo, hi int) (path []step, oldEnd int) {
	m, end := prev, len(old)
	for {
		i, spanEnd, found := entryHolding(old, m, end, lo, hi)
		if !found {
			return path, oldEnd
		}
		path = append(path, step{m: m, i: i})
		oldEnd = spanEnd
		v := m.Content[2*i+1]
		if v.Kind != Mapping || len(v.Content) == 0 || !startsLine(old, v.Content[0]) {
			return path, oldEnd
		}
		m, end = v, spanEnd
	}
}

// step is one mapping of the path to the entry parsed again, and the
// index of the entry in it.
type step struct {
	m *Node
	i int
}

// unsafeForReparse reports text whose parts cannot be parsed apart:
// anchors and aliases (a node shared across entries), directives and
// document markers, tabs, a byte-order mark.
func unsafeForReparse(b []byte) bool {
	return bytes.ContainsAny(b, "&*\t") || bytes.HasPrefix(b, []byte("\ufeff")) || bytes.HasPrefix(b, []byte("%")) || bytes.Contains(b, []byte("\n%")) ||
		bytes.HasPrefix(b, []byte("---")) || bytes.Contains(b, []byte("\n---")) || bytes.Contains(b, []byte("\n...")) || bytes.HasPrefix(b, []byte("..."))
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[len(a)-1-i] != b[len(b)-1-i] {
			return i
		}
	}
	return n
}

// lineStart is the offset of the start of the line holding offset at.
func lineStart(b []byte, at int) int {
	return bytes.LastIndexByte(b[:at], '\n') + 1
}

// startsLine reports whether a node is the first thing on its line, only
// spaces before it: a key of a block mapping.
func startsLine(b []byte, n *Node) bool {
	at := n.Range.Start.Byte
	if at <= 0 || at > len(b) {
		return at == 0
	}
	for i := at - 1; i >= 0 && b[i] != '\n'; i-- {
		if b[i] != ' ' {
			return false
		}
	}
	return true
}

// spanOf is where entry i of the block mapping m ends in b: the start of
// the line of the next key, or end (where m itself ends) for the last.
func spanOf(b []byte, m *Node, i, end int) int {
	if 2*i+2 < len(m.Content) {
		return lineStart(b, m.Content[2*i+2].Range.Start.Byte)
	}
	return end
}

// entryHolding finds the entry of the block mapping m (which ends at end
// in b) whose lines hold the bytes [lo, hi) of b, and where it ends.
func entryHolding(b []byte, m *Node, end, lo, hi int) (int, int, bool) {
	// A block mapping starts at its first key; a flow one at its {.
	if m.Kind != Mapping || len(m.Content) == 0 || !startsLine(b, m.Content[0]) || m.Range.Start != m.Content[0].Range.Start {
		return 0, 0, false
	}
	col := m.Content[0].Range.Start.Column
	for i := 0; 2*i < len(m.Content); i++ {
		k := m.Content[2*i]
		if k.Kind != Scalar || !startsLine(b, k) || k.Range.Start.Column != col || b[k.Range.Start.Byte] == '?' {
			return 0, 0, false
		}
		start, stop := lineStart(b, k.Range.Start.Byte), spanOf(b, m, i, end)
		if lo >= start && hi <= stop && lo < stop {
			return i, stop, true
		}
	}
	return 0, 0, false
}

// parseEntry parses the lines [start, end) of data, which must hold one
// entry of a block mapping whose key starts at key (its line and
// column), and returns the entry as a one-entry mapping with the
// positions it has in data.
func parseEntry(file string, data []byte, start, end int, key diag.Pos, lim Limits) (*Node, bool) {
	lines := bytes.Count(data[:start], []byte("\n"))
	text := make([]byte, 0, lines+end-start)
	text = append(text, bytes.Repeat([]byte("\n"), lines)...)
	text = append(text, data[start:end]...)
	docs, diags := ParseAll(file, text, lim)
	if len(diags) > 0 || len(docs) != 1 {
		return nil, false
	}
	m := docs[0]
	if m.Kind != Mapping || len(m.Content) != 2 || m.Content[0].Range.Start.Line != key.Line || m.Content[0].Range.Start.Column != key.Column {
		return nil, false
	}
	(&mover{from: 0, bytes: start - lines}).shift(m)
	return m, true
}

// mover moves the positions at or after byte from of the old text by
// lines and bytes (columns stay: the lines after a change are whole).
type mover struct {
	from, lines, bytes int
}

// rebuild returns a copy of the mapping path[d].m with its entry
// path[d].i replaced: by entry (the one-entry mapping parsed again) at
// the last step, else by the rebuilt mapping below. Entries before are
// shared, entries after copied with their positions moved.
func (mv *mover) rebuild(m *Node, path []step, d int, entry *Node) *Node {
	out := *m
	out.Content = make([]*Node, len(m.Content))
	i := path[d].i
	copy(out.Content[:2*i], m.Content[:2*i])
	if d == len(path)-1 {
		out.Content[2*i], out.Content[2*i+1] = entry.Content[0], entry.Content[1]
	} else {
		out.Content[2*i] = m.Content[2*i]
		out.Content[2*i+1] = mv.rebuild(m.Content[2*i+1], path, d+1, entry)
	}
	for j := 2*i + 2; j < len(m.Content); j++ {
		out.Content[j] = mv.moved(m.Content[j])
	}
	return &out
}

// moved copies a subtree that lies after the change, its positions
// moved.
func (mv *mover) moved(n *Node) *Node {
	out := *n
	mv.pos(&out.Range.Start)
	mv.pos(&out.Range.End)
	if len(n.Content) > 0 {
		out.Content = make([]*Node, len(n.Content))
		for i, c := range n.Content {
			out.Content[i] = mv.moved(c)
		}
	}
	return &out
}

// shift moves the positions of a subtree in place (one just parsed,
// owned by the caller).
func (mv *mover) shift(n *Node) {
	mv.pos(&n.Range.Start)
	mv.pos(&n.Range.End)
	for _, c := range n.Content {
		mv.shift(c)
	}
}

func (mv *mover) pos(p *diag.Pos) {
	if !p.IsZero() && p.Byte >= mv.from {
		p.Line += mv.lines
		p.Byte += mv.bytes
	}
}

func depthOf(n *Node) int {
	d := 0
	for _, c := range n.Content {
		d = max(d, depthOf(c))
	}
	return d + 1
}

func countTree(n *Node) int {
	c := 1
	for _, x := range n.Content {
		c += countTree(x)
	}
	return c
}
