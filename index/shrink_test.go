package index

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/transcripts"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// shrinkInputReference is shrinkInput as one function, kept to pin the
// split-up version to it.
func shrinkInputReference(raw []byte) jsontext.Value {
	const limit = inputHead + inputTail + 64
	raw = bytes.TrimSpace(raw)
	if len(raw) <= limit {
		return jsontext.Value(raw)
	}
	// A tool none of whose fields ToolSummary knows is summarised by the
	// start of its JSON: keep such inputs whole while they are small.
	if len(raw) <= fallbackInputBytes && transcripts.DecodeToolInput(raw) == (transcripts.ToolInput{}) {
		return jsontext.Value(raw)
	}
	cut := func(name, s string) jsontext.Token {
		if summaryFields[name] {
			return jsontext.String(transcripts.HeadTail(s, inputHead, inputTail))
		}
		return jsontext.String(transcripts.HeadTail(s, previewBytes, 0))
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var buf bytes.Buffer
	enc := jsontext.NewEncoder(&buf, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	fallback := func() jsontext.Value {
		v, _ := json.Marshal(map[string]string{"_input": transcripts.HeadTail(string(raw), inputHead, inputTail)})
		return v
	}
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return fallback()
	}
	if enc.WriteToken(jsontext.BeginObject) != nil {
		return fallback()
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return fallback()
		}
		name := tok.String() // the token is only valid until the next read
		val, err := dec.ReadValue()
		if err != nil {
			return fallback()
		}
		if err := enc.WriteToken(jsontext.String(name)); err != nil {
			return fallback()
		}
		switch {
		case val.Kind() == '"' && len(val) > previewBytes+64:
			var s string
			if json.Unmarshal(val, &s, jsontext.AllowInvalidUTF8(true)) != nil {
				return fallback()
			}
			err = enc.WriteToken(cut(name, s))
		case len(val) <= previewBytes+64 || val.Kind() == '"':
			err = enc.WriteValue(val)
		case val.Kind() == '[':
			var items []jsontext.Value
			if json.Unmarshal(val, &items, jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)) != nil {
				return fallback()
			}
			err = enc.WriteValue(jsontext.Value("[" + strings.TrimSuffix(strings.Repeat("0,", len(items)), ",") + "]"))
		default:
			err = enc.WriteToken(cut(name, string(val)))
		}
		if err != nil {
			return fallback()
		}
	}
	if enc.WriteToken(jsontext.EndObject) != nil {
		return fallback()
	}
	return jsontext.Value(bytes.TrimSpace(buf.Bytes()))
}

func TestShrinkInputMatchesReference(t *testing.T) {
	long := strings.Repeat("abcdefghij", 80)
	inputs := []string{
		`{}`, `  {"command":"ls"}  `,
		fmt.Sprintf(`{"command":%q,"description":"list"}`, long),
		fmt.Sprintf(`{"unknown":%q}`, long),
		fmt.Sprintf(`{"unknown":%q}`, long+long+long),
		fmt.Sprintf(`{"file_path":"/a","content":%q,"old_string":%q}`, long+long, long),
		fmt.Sprintf(`{"todos":[%s{"content":"x"}],"path":%q}`, strings.Repeat(`{"content":"todo item here"},`, 40), long),
		fmt.Sprintf(`{"pattern":"x","nested":{"a":%q,"b":[1,2,3]},"n":%s}`, long, strings.Repeat("1", 300)),
		fmt.Sprintf(`{"query":"q","query":%q}`, long+long+long),
		fmt.Sprintf(`{"url":"%s\xff\u00e9"}`, long+long+long),
		fmt.Sprintf("{\"prompt\":\"%s\xff\xfe\"}", long+long+long),
		fmt.Sprintf(`[%q]`, long+long+long),
		fmt.Sprintf(`%q`, long+long+long),
		fmt.Sprintf(`{"command":%q`, long+long+long),
		fmt.Sprintf(`{"command":%q}}`, long+long+long),
		fmt.Sprintf(`{"command":%q,}`, long+long+long),
		fmt.Sprintf(`{"command":"a","list":[%s"x"}`, strings.Repeat(`"item",`, 200)),
	}
	var p preparer
	for _, in := range inputs {
		got, want := p.shrinkInput([]byte(in)), shrinkInputReference([]byte(in))
		if !bytes.Equal(got, want) {
			t.Errorf("shrinkInput(%.60q...)\n got %.200s\nwant %.200s", in, got, want)
		}
	}
}
