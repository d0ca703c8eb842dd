package manifest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// JSONSchema returns the JSON Schema (draft 2020-12) of a manifest, for
// editors without a language server (the YAML language server reads it
// from a modeline), indented with a final newline. It follows load.go's
// grammar — a document holding only `application:`, components with
// type, interfaces, required, configuration, components and bindings,
// pins as declarations or their long form, bindings as pairs, the
// application's model policies — and lists
// the registry's component types and the pin kinds as suggestions (a
// type the registry lacks is a warning of the compiler, so the schema
// does not refuse it). The same build always returns the same bytes.
func JSONSchema(reg *Registry) ([]byte, error) {
	if reg == nil {
		reg = DefaultRegistry()
	}
	var kinds []string
	for _, k := range pinKindNames[1:] {
		kinds = append(kinds, k+"(…)")
	}
	kinds = append(kinds, "bind(component#interface.pin)")
	pin := map[string]any{"anyOf": []map[string]any{
		{"type": "string", "description": "a pin declaration: " + fmt.Sprint(kinds), "examples": []string{"configuration(string)", "publish-signal(string)", "consume-signal(string)", "send-command(string => string)", "receive-command()", "bind(component#interface.pin)"}},
		{"type": "object", "additionalProperties": false, "properties": map[string]any{
			"type": map[string]any{"type": "string", "description": "the pin declaration"}, "name": map[string]any{"type": "string", "description": "the pin's display title"},
			"suggestions": map[string]any{"type": "object"}, "arguments": map[string]any{"type": "object"}, "results": map[string]any{"type": "object"}}},
	}}
	props := map[string]any{
		"type":          map[string]any{"type": "string", "description": "the component type", "examples": slices.Clone(reg.Names())},
		"interfaces":    map[string]any{"type": []string{"object", "null"}, "description": "interfaces, by name: pins, by name", "additionalProperties": map[string]any{"type": []string{"object", "null"}, "additionalProperties": pin}},
		"required":      map[string]any{"type": "array", "description": "interfaces a binding must satisfy", "items": map[string]any{"type": "string"}},
		"configuration": map[string]any{"type": []string{"object", "null"}, "description": "configuration values, by interface.pin"},
		"components":    map[string]any{"type": []string{"object", "null"}, "description": "the components, by name", "additionalProperties": map[string]any{"$ref": "#/$defs/component"}},
		"bindings":      map[string]any{"type": []string{"array", "null"}, "description": "pairs of components (or component#interface) bound together", "items": map[string]any{"type": "array", "minItems": 2, "maxItems": 2, "items": map[string]any{"type": "string"}}},
	}
	component := map[string]any{"type": []string{"object", "null"}, "additionalProperties": false, "properties": props}
	// The application alone declares model policies (policies.go).
	appProps := maps.Clone(props)
	appProps["policies"] = map[string]any{"type": []string{"object", "null"}, "description": "model policies, by name",
		"additionalProperties": map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
			"implementation": map[string]any{"type": "string", "description": "the executable, relative to the manifest's folder"},
			"targets":        map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "component paths the policy reads"},
			"types":          map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "component types the policy reads"},
			"timeout":        map[string]any{"type": "integer", "exclusiveMinimum": 0, "description": "seconds"},
			"configuration":  map[string]any{"type": "object"},
		}}}
	application := map[string]any{"type": []string{"object", "null"}, "additionalProperties": false, "properties": appProps}
	s := map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"title":                "Tonomi-style application manifest (xosplan)",
		"type":                 "object",
		"required":             []string{"application"},
		"additionalProperties": false,
		"properties":           map[string]any{"application": application},
		"$defs":                map[string]any{"component": component},
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("marshalling the manifest JSON Schema: %w", err)
	}
	return append(data, '\n'), nil
}
