package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// bounds are the values each numeric setting accepts. A value outside is
// refused with the range and the default (`tool_output_head =
// 99999999999999` or `sync_lines = 0` used to be accepted silently, and
// did damage far from the config file). README's configuration table lists
// them (MarkdownTable). Durations are in seconds.
var bounds = map[string]bound{
	"ollama.dimensions":          {0, 8192},
	"ollama.timeout":             {0, 3600},
	"ollama.batch_size":          {1, 1024},
	"index.tool_output_head":     {0, 1 << 20},
	"index.tool_output_tail":     {0, 1 << 20},
	"search.vector_weight":       {0, 20},
	"memories.min_relevance":     {0, 1},
	"memories.sync_lines":        {10, 5000},
	"memories.retention_days":    {0, 36500},
	"claude.timeout":             {0, 3600},
	"claude.daily_runs":          {0, 1000},
	"claude.max_input":           {1000, 2000000},
	"hooks.session_start_tokens": {0, 50000},
	"hooks.prompt_tokens":        {0, 50000},
	"hooks.prompt_threshold":     {0, 1},
	"hooks.summaries":            {0, 50},
	"backup.keep":                {0, 1000},
}

type bound struct{ min, max float64 }

func (b bound) String() string {
	return strconv.FormatFloat(b.min, 'f', -1, 64) + "–" + strconv.FormatFloat(b.max, 'f', -1, 64)
}

var durationType = reflect.TypeFor[Duration]()

// numericValue is a numeric setting's value (a Duration in seconds).
func numericValue(v reflect.Value) (float64, bool) {
	switch {
	case v.Type() == durationType:
		return v.Interface().(Duration).Duration.Seconds(), true
	case v.CanInt():
		return float64(v.Int()), true
	case v.CanFloat():
		return v.Float(), true
	}
	return 0, false
}

// checkBounds refuses the first numeric setting outside its bounds.
func (c *Config) checkBounds() error {
	var err error
	eachSetting(reflect.ValueOf(*c), "", func(key string, _ reflect.StructField, v reflect.Value) {
		b, ok := bounds[key]
		if !ok || err != nil {
			return
		}
		x, ok := numericValue(v)
		if !ok || (x >= b.min && x <= b.max) {
			return
		}
		unit, shown := "", fmt.Sprint(v.Interface())
		if v.Type() == durationType {
			unit = " seconds"
		}
		def := ""
		eachSetting(reflect.ValueOf(Default()), "", func(k string, _ reflect.StructField, dv reflect.Value) {
			if k == key {
				def = tomlValue(dv.Interface())
			}
		})
		err = fmt.Errorf("%s = %s is out of range: use %s%s (the default is %s)", key, shown, b, unit, def)
	})
	return err
}

// eachSetting calls fn with every setting of struct v and its dotted key.
// Structs are sections, except those written as one value (Duration).
func eachSetting(v reflect.Value, prefix string, fn func(key string, f reflect.StructField, v reflect.Value)) {
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
			eachSetting(v.Field(i), prefix+name+".", fn)
			continue
		}
		fn(prefix+name, f, v.Field(i))
	}
}
