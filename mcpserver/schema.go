package mcpserver

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// bound declares one property's range in a tool's input schema. The SDK
// validates every call against the schema, so a value out of range is
// refused with a message naming it, never clamped or replaced by a default.
type bound struct {
	prop     string
	min, max *float64
	maxItems *int
}

func between(prop string, lo, hi float64) bound { return bound{prop: prop, min: &lo, max: &hi} }

func atMostItems(prop string, n int) bound { return bound{prop: prop, maxItems: &n} }

// inputSchema is In's inferred input schema with bounds declared.
func inputSchema[In any](bounds ...bound) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("input schema of %T: %v", *new(In), err))
	}
	for _, b := range bounds {
		p := s.Properties[b.prop]
		if p == nil {
			panic(fmt.Sprintf("input schema of %T has no property %q", *new(In), b.prop))
		}
		p.Minimum, p.Maximum = b.min, b.max
		if b.maxItems != nil {
			p.MaxItems = b.maxItems
		}
	}
	return s
}
