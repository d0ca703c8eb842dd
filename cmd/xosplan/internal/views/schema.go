package views

// Schema is the view of `xosplan schema`: a format's JSON Schema on
// stdout, for a file an editor names.
type Schema interface {
	// Schema writes the schema as config.JSONSchema made it.
	Schema(data []byte) error
}

// NewSchema returns the view of xosplan schema.
func NewSchema(s *Streams) Schema { return schemaView{s} }

type schemaView struct{ s *Streams }

func (v schemaView) Schema(data []byte) error {
	_, err := v.s.Stdout.Write(data)
	return err
}
