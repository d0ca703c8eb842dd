// Package canonjson is the one JSON writer of xosplan's large outputs (the
// state file and its journal, plan files, the JSON plan) and the one JSON
// reader of the state file: code paths where encoding/json's reflection
// costs too much (writing or reading the state of 10,000 resources must
// stay well under 0.2 s).
//
// Canonical means what encoding/json writes with SetEscapeHTML(false):
// object keys sorted (Map, Writer.Value) or in the order the caller writes
// them (struct fields); integers in decimal; floats in their shortest
// form, in exponent form outside [1e-6, 1e21) ("1e-7", "1e+21"), NaN and
// infinities refused; strings with ",
// \ and the control characters escaped (\n, \r, \t, \b, \f, others as
// \u00XX), U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD,
// everything else as it is. Two outputs promise more, and say so with a
// Format: the state file escapes <, > and & inside unknown values
// (EscapeHTML, what json.Marshal does there); plan files and the JSON plan
// write backspace and form feed as \u0008 and \u000c (HexControl, what
// encoding/json wrote before Go 1.22), since plan IDs and input digests
// are hashes of those bytes. TestAgainstEncodingJSON holds the writer to
// encoding/json, FuzzRoundTrip holds what it writes to what encoding/json
// reads back.
//
// The reader (Reader) is encoding/json's grammar with its error messages,
// reporting byte offsets; its callers map objects onto their own types
// with it.
package canonjson
