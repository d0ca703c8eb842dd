package yamlsrc

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
	"go.yaml.in/yaml/v3"
)

// The YAML library's error text ("yaml: line 3: did not find expected
// key") names one line and no column, and that line is the one of the
// error's context (where the mapping being parsed began), off by one for
// a parser error, not the line of the problem: a bad indentation on line
// 6, column 6 comes out as "line 3". The library's parser (a port of
// libyaml, as PyYAML's is) records both marks, 0-based line and column
// in characters, with the error type and texts, in fields it does not
// export. problemOf reads them through reflection, which reads unexported
// fields but cannot write them, so the parser is only looked at, after it
// failed. Should a release of the library rename those fields, problemOf
// reports !ok and syntaxDiag falls back to the line of the message; the
// table test TestSyntaxErrorPositions fails then, pointing here.

// libraryProblem is what the library's parser recorded of its error.
type libraryProblem struct {
	// reader is set for an error of the input layer (bad encoding), whose
	// place is the byte offset.
	reader bool
	offset int
	// problemLine and problemColumn are 0-based, the column in characters.
	problemLine, problemColumn int
	// context says what was being parsed ("while parsing a block
	// mapping"), starting at contextLine, contextColumn; "" when none.
	context                    string
	contextLine, contextColumn int
}

// The library's error types (yaml_error_type_t).
const (
	libReaderError  = 1
	libScannerError = 3
	libParserError  = 4
)

// problemOf reads the marks of the error dec's last Decode failed with.
func problemOf(dec *yaml.Decoder) (lp libraryProblem, ok bool) {
	defer func() {
		// Reflection on another package's layout: a field of an
		// unexpected kind panics, which means "not known".
		if recover() != nil {
			ok = false
		}
	}()
	v := reflect.ValueOf(dec).Elem().FieldByName("parser")
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return lp, false
	}
	p := v.Elem().FieldByName("parser")
	if !p.IsValid() {
		return lp, false
	}
	mark := func(name string) (int, int) {
		m := p.FieldByName(name)
		return int(m.FieldByName("line").Int()), int(m.FieldByName("column").Int())
	}
	switch p.FieldByName("error").Int() {
	case libReaderError:
		return libraryProblem{reader: true, offset: int(p.FieldByName("problem_offset").Int())}, true
	case libScannerError, libParserError:
		lp.problemLine, lp.problemColumn = mark("problem_mark")
		lp.context = p.FieldByName("context").String()
		lp.contextLine, lp.contextColumn = mark("context_mark")
		return lp, true
	}
	return lp, false
}

var (
	lineRE   = regexp.MustCompile(`line (\d+)(?:, column (\d+))?`)
	prefixRE = regexp.MustCompile(`^yaml: (line \d+(, column \d+)?: )?`)
)

// syntaxDiag turns the library's error into a diagnostic at the problem:
// where the scanner or parser found what it could not take (as PyYAML's
// problem_mark), a point inside the file, whose line the renderers quote;
// the context, when the library gives one, is the detail. Without the
// library's marks, the line of its message.
func syntaxDiag(file string, idx *lineIndex, dec *yaml.Decoder, err error) diag.Diagnostic {
	msg := err.Error()
	summary := prefixRE.ReplaceAllString(msg, "")
	d := diag.Diagnostic{Severity: diag.Error, Code: CodeSyntax, Summary: "invalid YAML: " + summary}
	var p diag.Pos
	lp, ok := problemOf(dec)
	switch {
	case ok && lp.reader:
		p = idx.posOfByte(min(max(lp.offset, 0), len(idx.data)))
	case ok:
		col := lp.problemColumn + 1
		if summary == "found unknown escape character" {
			// The library marks the backslash; the character after it is
			// the one unknown (PyYAML marks it).
			col++
		}
		p = idx.within(lp.problemLine+1, col)
		if p.Byte == len(idx.data) {
			d.Detail = "The file ends before what it opened is complete."
		}
		if lp.context != "" {
			c := idx.within(lp.contextLine+1, lp.contextColumn+1)
			d.Detail = strings.TrimPrefix(d.Detail+" The problem was found "+lp.context+" that starts at line "+
				strconv.Itoa(c.Line)+", column "+strconv.Itoa(c.Column)+".", " ")
		}
	default:
		line, col := 1, 1
		if m := lineRE.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			if m[2] != "" {
				col, _ = strconv.Atoi(m[2])
			}
		}
		p = idx.within(line, col)
	}
	d.Range = diag.Range{File: file, Start: p, End: p}
	return d
}

// within is pos for a place the library reported, held inside the file:
// a line past the last is the end of the file, a column past its line's
// end is that end.
func (x *lineIndex) within(line, col int) diag.Pos {
	switch {
	case line < 1:
		line, col = 1, 1
	case line > len(x.starts):
		return x.posOfByte(len(x.data))
	}
	p := x.pos(line, max(col, 1))
	end := len(x.data)
	if line < len(x.starts) {
		end = x.starts[line] - 1 // the newline
	}
	if p.Byte >= end {
		return x.posOfByte(min(p.Byte, end))
	}
	return p
}
