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
	eachSetting(reflect.ValueOf(Default()), "", func(key string, f reflect.StructField, v reflect.Value) {
		st := Setting{Key: key, Default: tomlValue(v.Interface()), Doc: f.Tag.Get("comment")}
		if b, ok := bounds[key]; ok {
			st.Range = b.String()
			if f.Type == durationType {
				st.Range += " s"
			}
		}
		out = append(out, st)
	})
	return out
}

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

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
