package redact

import (
	"strings"
	"testing"
)

// Every form of curl's user flags gives its password away, and only it:
// the user name and the rest of the command stay. A flag after the
// command's end (; or a newline, JSON-escaped or not) is not curl's.
func TestCurlUserForms(t *testing.T) {
	const pw = "Pa55wordXyz"
	for _, cmd := range []string{
		"curl -u admin:" + pw + " https://x.example",
		"curl -U admin:" + pw + " --proxy http://p.example https://x.example",
		"curl --proxy-user admin:" + pw + " https://x.example",
		"curl -uadmin:" + pw + " https://x.example",
		"curl --user=admin:" + pw + " https://x.example",
		`curl --user="admin:` + pw + `" https://x.example`,
		"curl --proxy-user=admin:" + pw + " https://x.example",
		`curl -s \ -u admin:` + pw + " https://x.example", // a line continued
	} {
		out, fs := Redact(cmd)
		if strings.Contains(out, pw) || !strings.Contains(out, "admin:") || !strings.Contains(out, "https://x.example") {
			t.Errorf("%s\n  -> %s", cmd, out)
		}
		if len(fs) != 1 || fs[0].Kind != KindCLIPassword {
			t.Errorf("%s: findings %+v", cmd, fs)
		}
	}
	for _, cmd := range []string{"curl -u", "curl -u admin https://x.example", "curl --user= https://x.example", "curl -u-x https://x.example",
		"curl -s; echo -u admin:" + pw + " https://x.example", `curl -s\necho -u admin:` + pw + " https://x.example"} {
		if out, fs := Redact(cmd); out != cmd || len(fs) != 0 {
			t.Errorf("%s: redacted %q %+v", cmd, out, fs)
		}
	}
}
