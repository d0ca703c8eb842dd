package core

// Schema is a JSON Schema, built by the helpers below (pkg/tosca's
// JSONSchema).
type Schema = map[string]any

// Object is a map with the properties props, closed to others or not.
func Object(props Schema, closed bool, description string) Schema {
	s := Schema{"type": "object", "properties": props}
	if closed {
		s["additionalProperties"] = false
	}
	if description != "" {
		s["description"] = description
	}
	return s
}

// MapOf is a map of names to values of a Schema; a value may be null (an
// empty entry).
func MapOf(of Schema, description string) Schema {
	return Schema{"type": []string{"object", "null"}, "additionalProperties": Schema{"anyOf": []Schema{of, {"type": "null"}}}, "description": description}
}

// ListOf is a list of values of a schema, or nothing.
func ListOf(of Schema, description string) Schema {
	return Schema{"type": []string{"array", "null"}, "items": of, "description": description}
}

// Keys makes a closed or open map whose properties are the keynames, any
// value each, with what descriptions says of some.
func Keys(names []string, closed bool, descriptions map[string]Schema) Schema {
	props := Schema{}
	for _, k := range names {
		if d, ok := descriptions[k]; ok {
			props[k] = d
			continue
		}
		props[k] = Schema{}
	}
	return Object(props, closed, "")
}

// Str is a string, or nothing: real files leave descriptions empty.
func Str(description string) Schema {
	return Schema{"type": []string{"string", "null"}, "description": description}
}
