package embed

import (
	"slices"
	"strings"
	"testing"
)

func terms(text string) []string {
	var tk tokenizer
	var out []string
	tk.forEachTerm(text, func(t []byte) { out = append(out, string(t)) })
	return out
}

func TestTokenizerCodeAware(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"parseTranscript", []string{"pars", "transcript", "parsetranscript"}},
		{"parse_transcript", []string{"pars", "transcript", "parsetranscript"}},
		{"transcripts/parse.go", []string{"transcript", "pars", "go"}},
		{"HTTPServer", []string{"http", "server", "httpserver"}},
		{"the socket connection drops", []string{"socket", "connect", "drop"}},
		{"queries querying query", []string{"queri", "queri", "queri"}},
		{"creating created creates create", []string{"creat", "creat", "creat", "creat"}},
		{"running embedded install", []string{"run", "embed", "install"}},
		{"6c2214d7-b87e-4432-8e41-22ba294ea584 uuid", []string{"uuid"}},
		{"commit 3f2a1b9c4d5e6f708192a3b4c5d6e7f8a9b0c1d2 sha", []string{"commit", "sha"}},
		{"error 404 on port 8080 id 1234567 line 12", []string{"error", "404", "port", "8080", "id", "lin"}},
		{"aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ= blob", []string{"blob"}},
		{"utf8 sha256 oauth2", []string{"utf8", "sha256", "oauth2"}},
		{"Ünïcode Straße", []string{"ünïcode", "straße"}},
	}
	for _, c := range cases {
		if got := terms(c.in); !slices.Equal(got, c.want) {
			t.Errorf("terms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"connections": "connect", "migration": "migrat", "migrate": "migrat", "classes": "class",
		"status": "status", "analysis": "analysis", "added": "add", "stopped": "stop", "keys": "key",
		"retries": "retri", "retry": "retri", "caching": "cach", "cache": "cach", "needed": "need",
	} {
		if got := string(stem([]byte(in))); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzTokenizer(f *testing.F) {
	f.Add("parseTranscript transcripts/parse.go HTTPServer2 Ünï_code--x")
	f.Fuzz(func(t *testing.T, s string) {
		for _, term := range terms(s) {
			if term == "" || strings.ContainsAny(term, " \t\n/._-") {
				t.Fatalf("bad term %q from %q", term, s)
			}
		}
	})
}
