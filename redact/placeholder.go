package redact

import (
	"bytes"
	"strings"
)

// placeholderWords are values that are documentation, types or defaults,
// never real secrets. Compared case-insensitively against the whole value.
var placeholderWords = []string{
	"pass", "password", "passwd", "pwd", "secret", "token", "apikey", "api_key",
	"changeme", "changeit", "string", "str", "null", "nil", "none", "undefined",
	"required", "optional", "example", "placeholder", "redacted", "hidden",
	"masked", "dummy", "notset", "not_set", "empty", "default", "boolean",
	"number", "integer", "object", "unknown", "bearer", "foobar", "enabled",
	"disabled", "true", "false", "secret123", "password123", "admin", "user",
	"username", "letmein",
	// auth method names: "auth: oauth2", "authorization": "bearer"
	"oauth", "oauth2", "openid", "oidc", "saml", "saml2", "ldap", "kerberos",
	"digest", "basic", "api-key", "session", "cookie",
	// default key file names: defaultPrivateKey = "id_ed25519"
	"id_rsa", "id_ed25519", "id_ecdsa", "id_dsa",
}

// placeholderParts mark a value as an example when they occur anywhere in
// it (case-insensitively): "<your-api-key>", "sk-xxxx", "REPLACE_ME".
var placeholderParts = [][]byte{
	[]byte("example"), []byte("placeholder"), []byte("dummy"), []byte("your"),
	[]byte("changeme"), []byte("change_me"), []byte("change-me"),
	[]byte("redacted"), []byte("replace"), []byte("insert"), []byte("fake"),
	[]byte("xxxx"), []byte("****"), []byte("..."), []byte("${"), []byte("{{"),
	[]byte("}}"), []byte("\u2026"),
	// printf verbs: "Token: type=%d"
	[]byte("%s"), []byte("%d"), []byte("%v"), []byte("%q"), []byte("%x"),
}

// placeholderFirst holds the first bytes that make a value a reference,
// pointer, YAML tag/anchor or path ("/run/secrets/x", "./key.pem").
var placeholderFirst = [256]bool{
	'$': true, '<': true, '%': true, '{': true, '[': true, '*': true, '&': true, '!': true, '@': true,
	'#': true, '?': true, ':': true, '=': true, '|': true, '~': true, '^': true, '/': true, '.': true,
}

// isPlaceholder reports whether v is obviously not a real secret: a
// variable reference ($VAR, ${VAR}, %VAR%, <key>, {{ .X }}), a masked or
// elided value (xxxx, ****, sk-...), or a well-known dummy word.
func isPlaceholder(v string) bool {
	if v == "" || placeholderFirst[v[0]] {
		return true
	}
	if strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "urn:") {
		return true
	}
	for _, w := range placeholderWords {
		if strings.EqualFold(v, w) {
			return true
		}
	}
	if isMasked(v) {
		return true
	}
	if len(v) > maxValueLen {
		return false
	}
	return hasPlaceholderPart(v) || strings.Contains(v, "://") // a URL, not a credential (url_password handles user:pass@)
}

// isMasked reports whether v is mostly x, X or * or a single repeated byte.
func isMasked(v string) bool {
	masked, same := 0, true
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case 'x', 'X', '*':
			masked++
		}
		if v[i] != v[0] {
			same = false
		}
	}
	return same || masked*2 >= len(v)
}

// hasPlaceholderPart reports whether v, lower-cased, contains one of
// placeholderParts. v is at most maxValueLen bytes long.
func hasPlaceholderPart(v string) bool {
	var buf [maxValueLen]byte
	low := buf[:len(v)]
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	for _, p := range placeholderParts {
		if bytes.Contains(low, p) {
			return true
		}
	}
	return false
}
