package ollama

import (
	"strings"
	"testing"
)

func TestParseHost(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "http://127.0.0.1:11434"},
		{"  ", "http://127.0.0.1:11434"},
		{"gpu-box", "http://gpu-box:11434"},
		{"gpu-box:8080", "http://gpu-box:8080"},
		{" gpu-box:8080\n", "http://gpu-box:8080"},
		{"10.0.0.5", "http://10.0.0.5:11434"},
		{"10.0.0.5:9999", "http://10.0.0.5:9999"},
		{":8080", "http://127.0.0.1:8080"},
		{"0.0.0.0", "http://0.0.0.0:11434"},
		{"::1", "http://[::1]:11434"},
		{"[::1]", "http://[::1]:11434"},
		{"[::1]:8080", "http://[::1]:8080"},
		{"2001:db8::5", "http://[2001:db8::5]:11434"},
		{"[fe80::1%eth0]:1", "http://[fe80::1%25eth0]:1"},
		{"http://gpu-box:11434", "http://gpu-box:11434"},
		{"http://gpu-box:11434/", "http://gpu-box:11434"},
		{"HTTP://gpu-box:11434", "http://gpu-box:11434"},
		// An explicit scheme brings its own default port, as in the ollama CLI.
		{"http://gpu-box", "http://gpu-box:80"},
		{"https://ollama.example", "https://ollama.example:443"},
		{"https://ollama.example:8443", "https://ollama.example:8443"},
		{"http://[::1]:11434", "http://[::1]:11434"},
		{"http://[::1]", "http://[::1]:80"},
		{"http://:9000", "http://127.0.0.1:9000"},
		{"http://host:1234/prefix/", "http://host:1234/prefix/"},
		{"https://proxy.example/ollama", "https://proxy.example:443/ollama"},
		{"ollama.com", "https://ollama.com:443"},
	} {
		u, err := ParseHost(c.in)
		if err != nil {
			t.Errorf("ParseHost(%q): %v", c.in, err)
			continue
		}
		if u.String() != c.want {
			t.Errorf("ParseHost(%q) = %s, want %s", c.in, u, c.want)
		}
	}
}

func TestParseHostRejects(t *testing.T) {
	for _, in := range []string{
		"ftp://gpu-box",
		"unix:///var/run/ollama.sock",
		"gpu-box:0",
		"gpu-box:65536",
		"gpu-box:port",
		"http://gpu-box:-1",
		"gpu box",
		"user:pw@gpu-box",
		"http://gpu-box:11434/?x=1",
		"[::1",
		"::1]",
		"1:2:3:zz",
		"[gpu-box]:1",
	} {
		u, err := ParseHost(in)
		if err == nil {
			t.Errorf("ParseHost(%q) = %s, want an error", in, u)
			continue
		}
		// The message names the input and shows a form that works.
		if msg := err.Error(); !strings.Contains(msg, strings.TrimSpace(in)) || !strings.Contains(msg, "127.0.0.1:11434") {
			t.Errorf("ParseHost(%q): unhelpful error %q", in, msg)
		}
	}
}

func TestResolveHost(t *testing.T) {
	t.Setenv(EnvHost, "")
	if u, err := ResolveHost(""); err != nil || u.String() != DefaultHost {
		t.Errorf("default: %v %v", u, err)
	}
	t.Setenv(EnvHost, "10.0.0.5:9999")
	if u, err := ResolveHost(""); err != nil || u.String() != "http://10.0.0.5:9999" {
		t.Errorf("$OLLAMA_HOST: %v %v", u, err)
	}
	if u, err := ResolveHost("gpu-box"); err != nil || u.String() != "http://gpu-box:11434" {
		t.Errorf("the configured host comes first: %v %v", u, err)
	}
	t.Setenv(EnvHost, "ftp://x")
	if _, err := ResolveHost(""); err == nil || !strings.Contains(err.Error(), "ftp://x") {
		t.Errorf("bad $OLLAMA_HOST: %v", err)
	}
}
