package config

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Setting is one key of the config file, as Reference lists it.
type Setting struct {
	Key     string // the dotted TOML key, e.g. "search.fusion"
	Default string // the default as a TOML value, as `cairn config` prints it: 'weighted', 0.2, [], '30s'
	Doc     string // what it means: the field's comment tag
	Range   string // the values accepted, for numbers ("" for the rest)
}

// Reference lists every setting of Config in file order, with its default
// and its comment tag, by walking the struct; README's configuration table
// is generated from it (MarkdownTable), so the two cannot drift.
func Reference() []Setting {
	var out []Setting
	walk(reflect.ValueOf(Default()), "", &out)
	return out
}

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

// walk appends the settings of struct v, whose keys start with prefix.
// Structs are sections, except those written as one value (Duration).
func walk(v reflect.Value, prefix string, out *[]Setting) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if f.Type.Kind() == reflect.Struct && !f.Type.Implements(textMarshaler) {
			walk(v.Field(i), prefix+name+".", out)
			continue
		}
		st := Setting{Key: prefix + name, Default: tomlValue(v.Field(i).Interface()), Doc: f.Tag.Get("comment")}
		if b, ok := bounds[st.Key]; ok {
			st.Range = b.String()
			if f.Type == durationType {
				st.Range += " s"
			}
		}
		*out = append(*out, st)
	}
}

// tomlValue writes v as the TOML encoder writes it in a file.
func tomlValue(v any) string {
	b, err := toml.Marshal(map[string]any{"v": v})
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(strings.TrimPrefix(string(b), "v = "), "\n")
}

// MarkdownTable is Reference as a Markdown table: key, default, meaning.
func MarkdownTable() string {
	var b strings.Builder
	b.WriteString("| key | default | allowed | meaning |\n|---|---|---|---|\n")
	for _, s := range Reference() {
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", s.Key, s.Default, s.Range, strings.ReplaceAll(s.Doc, "|", `\|`))
	}
	return b.String()
}
