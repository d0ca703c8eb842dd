// Package uievent encodes one line of xosplan's machine-readable UI, the
// envelope shared by `plan -json` (planview) and `apply -json` (applyview):
// one JSON object per line in the shape of Terraform's -json output. Both
// views go through Line so that their streams cannot drift apart.
package uievent

import (
	"bytes"
	"encoding/json"
	"time"
)

// Module is the "@module" of every event.
const Module = "xosplan.ui"

// TimestampLayout is Terraform's "@timestamp": the time's own zone, with
// microseconds and the zone offset.
const TimestampLayout = "2006-01-02T15:04:05.000000Z07:00"

// Line returns one event: an object with "@level", "@message", "@module",
// "@timestamp" (at) and "type", plus fields (which override none of those
// unless they name them), with sorted keys, HTML characters unescaped and a
// trailing newline. The error is only ever json's, for a field value it
// cannot encode.
func Line(at time.Time, level, message, typ string, fields map[string]any) ([]byte, error) {
	m := map[string]any{
		"@level":     level,
		"@message":   message,
		"@module":    Module,
		"@timestamp": at.Format(TimestampLayout),
		"type":       typ,
	}
	for k, v := range fields {
		m[k] = v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
