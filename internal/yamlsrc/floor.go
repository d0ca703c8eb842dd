package yamlsrc

import (
	"bytes"
	"errors"
	"io"

	yaml "go.yaml.in/yaml/v3"
)

// ParseFloor only parses data into the YAML library's own tree, every
// document, and returns how many nodes it built: none of Parse's checks,
// conversion or positions. It is the floor the benchmarks measure
// validate against (the least any reading of the file can cost with this
// library), not a way to read user input.
func ParseFloor(data []byte) (int, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	n := 0
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			return n, nil
		} else if err != nil {
			return n, err
		}
		n += len(doc.Content)
	}
}
