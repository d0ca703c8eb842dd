package yamlsrc

// The YAML library builds a document's whole node tree (some 150 bytes a
// node, and as much again for ours) before any limit of ours can look at
// it: 16 MiB of flow lists, "[1,2,3],[4,5,6],…", is eight million nodes,
// minutes and gigabytes. countNodes bounds the tree from the bytes first,
// in one pass that allocates nothing.
//
// It is a tokenizer of YAML's surface, not a parser: it skips what cannot
// hold nodes (comments, quoted scalars, block scalar bodies) and counts
// each scalar, alias and flow collection, plus one for each place a block
// collection or an empty value can begin (a key or entry with nothing
// after it on its line, an entry that holds a map, a flow entry without a
// value). Each of those is at least one node of the library's tree, so for
// what the library accepts the count is not below the tree's size (a
// multi-line plain scalar counts once per line, so it may be above); the
// fuzz test FuzzCountNodesBoundsTheTree holds it to that. Whatever it
// misjudges, Parse also counts the nodes it converts.

// flowKinds bounds the flow collections whose kind the scan remembers;
// deeper ones (past every depth limit) count as lists.
const flowKinds = 512

// nodeScan is the state of countNodes.
type nodeScan struct {
	data  []byte
	i     int
	n     int
	limit int
	// lineStart is the offset of the current line's first byte.
	lineStart int
	// flow holds the open flow collections' brackets, and for each the
	// state of its current entry (entryHasNode, entryHasValue); depth may
	// exceed flowKinds.
	flow       [flowKinds]byte
	entryState [flowKinds]uint8
	depth      int
	// pending is set after an indicator that the next token on the line
	// belongs to: a key's ':', a block entry's '-' or '?', a document
	// start. pendingCol is the column a block scalar there must be
	// indented past.
	pending    pendingKind
	pendingCol int
	// entry is set after a block entry ("- "), whose content on the same
	// line, when it is a key, opens a map.
	entry bool
	// prop is set after an anchor or a tag, which makes a node of nothing
	// when no node follows it.
	prop bool
	// cont is set when a plain scalar ran to the end of its line: the
	// next line may continue it (in a block, when indented past
	// contAbove), and a quote there is then text, not a quoted scalar.
	cont      bool
	contAbove int
}

type pendingKind uint8

const (
	noneP pendingKind = iota
	valueP
	entryP
)

// countNodes returns the number of nodes data holds as the YAML library
// builds them (see above), or a number above limit as soon as the count
// passes it, with the offset it had reached then.
func countNodes(data []byte, limit int) (int, int) {
	// A document's start is like a block entry's: its root is what
	// follows, and a key there opens the root map.
	s := nodeScan{data: data, limit: limit, pending: entryP, pendingCol: -1, entry: true}
	for s.i < len(s.data) && s.n <= s.limit {
		s.line()
	}
	return s.n, min(s.i, len(s.data))
}

// line scans one line, from its first byte to the byte after its newline.
func (s *nodeScan) line() {
	s.lineStart = s.i
	indent := 0
	for s.i < len(s.data) && s.data[s.i] == ' ' {
		s.i++
		indent++
	}
	if s.depth == 0 && indent == 0 && s.i < len(s.data) {
		switch {
		case s.data[s.i] == '%':
			s.skipLine()
			return
		case s.marker("---"):
			s.i += 3
			s.pending, s.pendingCol, s.entry, s.cont = entryP, -1, true, false
		case s.marker("..."):
			s.cont = false
			s.skipLine()
			return
		}
	}
	if s.cont {
		s.continuePlain(indent)
	}
	for s.i < len(s.data) && s.n <= s.limit {
		c := s.data[s.i]
		switch {
		case s.brk(s.i) > 0:
			s.endOfLine()
			s.i += s.brk(s.i)
			return
		case isBlank(c):
			s.i++
		case c == '#' && (s.i == s.lineStart || isBlank(s.data[s.i-1])):
			s.skipToNewline()
		default:
			if s.token() {
				return // a block scalar consumed the lines after this one
			}
		}
	}
	s.endOfLine()
}

// continuePlain skips the start of a line that continues the plain scalar
// of the line before, as the YAML library reads it: in a flow collection
// unless the line starts with an indicator, in a block when it is
// indented past the scalar's parent. A line that does not continue it
// ends it.
func (s *nodeScan) continuePlain(indent int) {
	j := s.i
	for j < len(s.data) && isBlank(s.data[j]) {
		j++
	}
	if j >= len(s.data) || s.brk(j) > 0 {
		return // a blank line: the scalar may go on after it
	}
	s.cont = false
	c := s.data[j]
	switch {
	case c == '#':
		return
	case s.depth > 0 && (c == ',' || c == '?' || c == '[' || c == ']' || c == '{' || c == '}' || c == ':' && s.blankAfter(j+1)):
		return
	case s.depth == 0 && indent <= s.contAbove:
		return
	}
	s.i = j
	s.skipPlain()
	s.cont = s.i >= len(s.data) || s.brk(s.i) > 0
}

// endOfLine counts the node that a pending value or entry with nothing
// after it on its line stands for: a nested block collection or null.
func (s *nodeScan) endOfLine() {
	if s.depth == 0 && (s.pending != noneP || s.prop) {
		s.n++
		s.prop = false
	}
	if s.depth == 0 {
		s.pending, s.entry = noneP, false
	}
}

// token scans one token at s.i. It returns true when it consumed a block
// scalar, whose body runs to the start of a later line.
func (s *nodeScan) token() bool {
	c := s.data[s.i]
	col := s.col()
	switch {
	case c == '-' && s.depth == 0 && s.blankAfter(s.i+1),
		c == '?' && s.depth == 0 && s.blankAfter(s.i+1):
		// A block entry (or explicit key): what follows on the line is
		// its content.
		if s.pending == entryP && s.entry {
			s.n++ // "- - x": the outer entry holds a list or a map
		}
		if c == '?' {
			s.n++ // the key's value, null unless a ':' line gives it
		}
		s.i++
		s.pending, s.pendingCol, s.entry = entryP, col, true
		return false
	case c == '?' && s.depth > 0:
		// An explicit key in a flow collection: its value and its key,
		// null unless written (then counted twice), and in a list the
		// one-pair map it makes.
		s.n += 2
		if s.inFlowList() {
			s.n++
		}
		s.i++
		return false
	case c == '[' || c == '{':
		s.consumeValue()
		s.markEntry(entryHasNode)
		s.n++
		if s.depth < flowKinds {
			s.flow[s.depth], s.entryState[s.depth] = c, 0
		}
		s.depth++
		s.i++
		return false
	case c == ']' || c == '}':
		s.closeFlowEntry()
		if s.depth > 0 {
			s.depth--
		}
		s.i++
		return false
	case c == ',':
		s.closeFlowEntry()
		s.i++
		return false
	case c == ':' && (s.depth > 0 || s.blankAfter(s.i+1)):
		// A value indicator with no key written: an empty key (in a flow
		// list, in a one-pair map).
		s.n++
		if (s.depth > 0 && s.inFlowList()) || (s.pending == entryP && s.entry) {
			s.n++ // the map the key opens
		}
		s.prop, s.entry = false, false
		s.i++
		s.markEntry(entryHasValue)
		s.valueNext(col)
		return false
	case c == '&' || c == '!':
		// An anchor or a tag belongs to the node that follows.
		s.skipName()
		s.prop = true
		return false
	case c == '*':
		s.skipName()
		s.scalarDone(col)
		return false
	case (c == '|' || c == '>') && s.depth == 0 && s.pending != noneP:
		s.n++
		s.prop = false
		threshold := s.pendingCol
		s.pending, s.entry = noneP, false
		s.skipToNewline()
		s.skipBlockBody(threshold)
		return true
	case c == '"' || c == '\'':
		s.skipQuoted(c)
		s.scalarDone(col)
		return false
	}
	// A block scalar's continuation lines are indented past its parent:
	// the key or entry it is the value of, else (a scalar starting its
	// line) at least past its own line's start.
	above := col - 1
	if s.pending != noneP {
		above = s.pendingCol
	}
	s.skipPlain()
	open := s.i >= len(s.data) || s.brk(s.i) > 0
	s.scalarDone(col)
	s.cont, s.contAbove = open, above
	return false
}

// consumeValue takes the pending value or entry for a node that starts
// now; an entry holding a key is handled by scalarDone.
func (s *nodeScan) consumeValue() {
	s.pending, s.entry, s.prop = noneP, false, false
}

// scalarDone counts the scalar (or alias) just skipped, which started at
// column col, and whether it is a key: a key in a flow list is a one-pair
// map; a key as a block entry's content opens a map.
func (s *nodeScan) scalarDone(col int) {
	s.n++
	s.markEntry(entryHasNode)
	entry := s.pending == entryP && s.entry
	s.pending, s.entry, s.prop = noneP, false, false
	j := s.i
	for j < len(s.data) && (s.data[j] == ' ' || s.data[j] == '\t') {
		j++
	}
	if j < len(s.data) && s.data[j] == ':' && (s.depth > 0 || s.blankAfter(j+1)) {
		if entry || (s.depth > 0 && s.inFlowList()) {
			s.n++
		}
		s.i = j + 1
		s.markEntry(entryHasValue)
		s.valueNext(col)
	}
}

// valueNext marks that a key's value comes next; a block scalar there must
// be indented past the key's column.
func (s *nodeScan) valueNext(keyCol int) {
	if s.depth > 0 {
		s.pending = valueP
		return
	}
	s.pending, s.pendingCol = valueP, keyCol
}

// closeFlowEntry counts the null of a flow map key's ':', or of an anchor
// or a tag, with nothing after it before ',' or the closing bracket.
// A key written with no ':' gets a null value too.
func (s *nodeScan) closeFlowEntry() {
	if s.depth > 0 && (s.pending == valueP || s.prop) {
		s.n++
	}
	if s.depth > 0 && s.depth <= flowKinds && !s.inFlowList() && s.entryState[s.depth-1] == entryHasNode {
		s.n++
	}
	if s.depth > 0 && s.depth <= flowKinds {
		s.entryState[s.depth-1] = 0
	}
	s.pending, s.prop = noneP, false
}

// Flags of a flow collection's current entry.
const (
	entryHasNode  = 1
	entryHasValue = 2
)

// markEntry records what the current flow entry holds.
func (s *nodeScan) markEntry(flag uint8) {
	if s.depth > 0 && s.depth <= flowKinds {
		s.entryState[s.depth-1] |= flag
	}
}

func (s *nodeScan) inFlowList() bool {
	return s.depth > flowKinds || s.flow[s.depth-1] == '['
}

// skipPlain skips a plain scalar to its end on this line.
func (s *nodeScan) skipPlain() {
	for s.i++; s.i < len(s.data); s.i++ {
		c := s.data[s.i]
		switch {
		case s.brk(s.i) > 0:
			return
		case c == '#' && isBlank(s.data[s.i-1]):
			return
		case c == ':' && s.blankAfter(s.i+1):
			return
		case s.depth > 0 && (c == ',' || c == '?' || c == '[' || c == ']' || c == '{' || c == '}'):
			return
		}
	}
}

// skipQuoted skips a quoted scalar, across lines, to after its closing
// quote.
func (s *nodeScan) skipQuoted(q byte) {
	for s.i++; s.i < len(s.data); s.i++ {
		c := s.data[s.i]
		switch {
		case s.brk(s.i) > 0:
			s.i += s.brk(s.i) - 1
			s.lineStart = s.i + 1
		case q == '"' && c == '\\':
			s.i++
		case c == q && q == '\'' && s.i+1 < len(s.data) && s.data[s.i+1] == '\'':
			s.i++
		case c == q:
			s.i++
			return
		}
	}
}

// skipName skips an anchor, alias or tag: an anchor or alias name is
// letters, digits, '-' and '_' (as the YAML library reads it), a tag runs
// to a blank or, in a flow collection, a flow indicator.
func (s *nodeScan) skipName() {
	tag := s.data[s.i] == '!'
	for s.i++; s.i < len(s.data); s.i++ {
		c := s.data[s.i]
		if tag {
			if isBlank(c) || s.brk(s.i) > 0 || (s.depth > 0 && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}')) {
				return
			}
			continue
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return
		}
	}
}

// skipBlockBody skips the lines of a block scalar: blank lines and lines
// indented past threshold. It leaves s.i at the start of the first other
// line.
func (s *nodeScan) skipBlockBody(threshold int) {
	for s.i < len(s.data) {
		// s.i is at a line break.
		s.i += max(s.brk(s.i), 1)
		s.lineStart = s.i
		j, indent := s.i, 0
		for j < len(s.data) && s.data[j] == ' ' {
			j++
			indent++
		}
		blank := j >= len(s.data) || s.brk(j) > 0
		if !blank && indent <= threshold {
			return
		}
		if !blank && threshold < 0 && indent == 0 && (s.markerAt(j, "---") || s.markerAt(j, "...")) {
			return
		}
		s.i = j
		s.skipToNewline()
	}
}

func (s *nodeScan) skipLine() {
	s.skipToNewline()
	s.i += s.brk(s.i)
}

// skipToNewline moves to the next line break (or the end).
func (s *nodeScan) skipToNewline() {
	for s.i < len(s.data) && s.brk(s.i) == 0 {
		s.i++
	}
}

// brk returns the length of the line break at j, 0 when there is none:
// the YAML library breaks lines at \n, \r, \r\n, NEL, LS and PS.
func (s *nodeScan) brk(j int) int {
	if j >= len(s.data) {
		return 0
	}
	switch c := s.data[j]; {
	case c == '\n':
		return 1
	case c == '\r':
		if j+1 < len(s.data) && s.data[j+1] == '\n' {
			return 2
		}
		return 1
	case c == 0xC2 && j+1 < len(s.data) && s.data[j+1] == 0x85:
		return 2
	case c == 0xE2 && j+2 < len(s.data) && s.data[j+1] == 0x80 && (s.data[j+2] == 0xA8 || s.data[j+2] == 0xA9):
		return 3
	}
	return 0
}

// col returns the column (in bytes from the line's start) of s.i.
func (s *nodeScan) col() int { return s.i - s.lineStart }

func (s *nodeScan) marker(m string) bool { return s.markerAt(s.i, m) }

func (s *nodeScan) markerAt(j int, m string) bool {
	return len(s.data)-j >= len(m) && string(s.data[j:j+len(m)]) == m && s.blankAfter(j+len(m))
}

// blankAfter reports whether the byte at j is a space, a line end or the
// end of the data.
func (s *nodeScan) blankAfter(j int) bool {
	return j >= len(s.data) || isBlank(s.data[j]) || s.brk(j) > 0
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }
