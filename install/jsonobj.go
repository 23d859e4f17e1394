package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Object is a JSON object that keeps its keys in file order, so merging
// into a user's settings.json changes only what cairn adds. Values are
// *Object, []any, string, json.Number, bool or nil.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

// Get returns a key's value.
func (o *Object) Get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// Set sets a key, appending it when new.
func (o *Object) Set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Delete removes a key.
func (o *Object) Delete(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// Keys returns the keys in order.
func (o *Object) Keys() []string { return append([]string(nil), o.keys...) }

// Len is the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// Child returns the object at k, creating it when absent. It fails when k
// holds something else.
func (o *Object) Child(k string) (*Object, error) {
	v, ok := o.vals[k]
	if !ok {
		c := NewObject()
		o.Set(k, c)
		return c, nil
	}
	c, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("%q is a %s, not an object", k, kindOf(v))
	}
	return c, nil
}

func kindOf(v any) string {
	switch v.(type) {
	case *Object:
		return "object"
	case []any:
		return "list"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// ParseObject reads a JSON object keeping key order and number text.
// Empty input is an empty object.
func ParseObject(b []byte) (*Object, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return NewObject(), nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON object")
	}
	o, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("the file holds a JSON %s, not an object", kindOf(v))
	}
	return o, nil
}

// parseValue reads the next JSON value of dec, objects as *Object (their
// members in the file's order), arrays as []any.
func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		return parseMembers(dec)
	case json.Delim('['):
		return parseElements(dec)
	}
	if t, ok := tok.(json.Delim); ok {
		return nil, fmt.Errorf("unexpected %v", t)
	}
	return tok, nil
}

// parseMembers reads an object's members, after its '{', and its '}'.
func parseMembers(dec *json.Decoder) (*Object, error) {
	o := NewObject()
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := kt.(string)
		v, err := parseValue(dec)
		if err != nil {
			return nil, err
		}
		o.Set(k, v)
	}
	_, err := dec.Token() // }
	return o, err
}

// parseElements reads an array's elements, after its '[', and its ']'.
func parseElements(dec *json.Decoder) ([]any, error) {
	list := []any{}
	for dec.More() {
		v, err := parseValue(dec)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
	}
	_, err := dec.Token() // ]
	return list, err
}

// Marshal writes o with two-space indentation and a final newline, as
// Claude Code writes its settings.
func (o *Object) Marshal() []byte {
	var b bytes.Buffer
	writeValue(&b, o, "")
	b.WriteByte('\n')
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v any, indent string) {
	switch t := v.(type) {
	case *Object:
		writeObject(b, t, indent)
	case []any:
		writeArray(b, t, indent)
	case []string:
		list := make([]any, len(t))
		for i, s := range t {
			list[i] = s
		}
		writeValue(b, list, indent)
	case string:
		writeString(b, t)
	case json.Number:
		b.WriteString(t.String())
	case int:
		b.WriteString(strconv.Itoa(t))
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case nil:
		b.WriteString("null")
	default:
		j, _ := json.Marshal(t)
		b.Write(j)
	}
}

// writeObject writes o with one member a line, indented below indent.
func writeObject(b *bytes.Buffer, o *Object, indent string) {
	if o.Len() == 0 {
		b.WriteString("{}")
		return
	}
	b.WriteString("{\n")
	for i, k := range o.keys {
		b.WriteString(indent + "  ")
		writeString(b, k)
		b.WriteString(": ")
		writeValue(b, o.vals[k], indent+"  ")
		if i < len(o.keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "}")
}

// writeArray writes list with one element a line, indented below indent.
func writeArray(b *bytes.Buffer, list []any, indent string) {
	if len(list) == 0 {
		b.WriteString("[]")
		return
	}
	b.WriteString("[\n")
	for i, x := range list {
		b.WriteString(indent + "  ")
		writeValue(b, x, indent+"  ")
		if i < len(list)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "]")
}

func writeString(b *bytes.Buffer, s string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.WriteString(strings.TrimSuffix(buf.String(), "\n"))
}

// Plain converts a value into plain Go values (map[string]any, []any,
// float64...) for comparing meaning.
func Plain(v any) any {
	switch t := v.(type) {
	case *Object:
		m := make(map[string]any, t.Len())
		for _, k := range t.keys {
			m[k] = Plain(t.vals[k])
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = Plain(x)
		}
		return out
	case json.Number:
		f, _ := t.Float64()
		return f
	}
	return v
}
