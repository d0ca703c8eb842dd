// Package canonjson is the one hand-written JSON writer of xosplan (the
// state file and its journal, plan files, the JSON plan) and its one
// hand-written JSON reader (the state file): where encoding/json's
// reflection costs too much, since writing or reading the state of 10,000
// resources must stay well under 0.2 s.
//
// Canonical means what encoding/json writes with SetEscapeHTML(false):
// map keys sorted (Writer.Value, Map, PushKeys),
// struct fields in the order the caller writes them; integers in decimal;
// floats in their shortest form, in exponent form outside [1e-6, 1e21)
// ("1e-7", "1e+21"), NaN and infinities refused; strings with ", \ and the
// control characters escaped (\n, \r, \t, \b, \f, the others as \u00XX),
// U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD, everything
// else as it is; a nil map or list is null; graph.Unknown as
// {"$unknown": {"func": …, "args": […]}}. An output that promises more says
// so with a Format: the state file escapes <, > and & inside Unknowns
// (EscapeHTMLInUnknowns: json.Marshal does there); plan files and the JSON
// plan write backspace and form feed as \u0008 and \u000c (HexControl:
// encoding/json did before Go 1.22, and plan IDs and input digests are
// hashes of these bytes) and nil lists as [] (ListsNeverNull).
// TestAgainstEncodingJSON holds the writer to encoding/json, and
// FuzzRoundTrip holds what it writes to what encoding/json reads back.
//
// The Reader accepts encoding/json's grammar, reads what it reads, and
// words its errors as it does, at byte offsets; its callers map objects
// onto their own types with it. TestReaderAgainstEncodingJSON and
// FuzzReader compare the two.
package canonjson
