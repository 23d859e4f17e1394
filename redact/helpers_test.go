package redact

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
)

// Fake secrets are generated at run time from a fixed seed so that no
// provider-shaped credential is ever committed (secret scanners and push
// protection would, rightly, complain).

const (
	alnum     = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b64url    = alnum + "-_"
	b64std    = alnum + "+/"
	upperDig  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	hexDigits = "0123456789abcdef"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

func randFrom(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// randToken returns n bytes from alphabet guaranteed to contain an upper
// case letter, a lower case letter and a digit (as real keys virtually
// always do), placed at random positions.
func randToken(r *rand.Rand, alphabet string, n int) string {
	b := []byte(randFrom(r, alphabet, n))
	b[r.IntN(n)] = 'A' + byte(r.IntN(26))
	b[r.IntN(n)] = 'a' + byte(r.IntN(26))
	b[r.IntN(n)] = '0' + byte(r.IntN(10))
	return string(b)
}

func fakeJWT(r *rand.Rand) string {
	enc := base64.RawURLEncoding
	h := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	p := enc.EncodeToString([]byte(`{"sub":"` + randFrom(r, alnum, 12) + `","iat":1516239022}`))
	return h + "." + p + "." + randFrom(r, b64url, 43)
}

func fakePEM(r *rand.Rand, label, nl string) (block, body string) {
	var lines []string
	for range 8 {
		lines = append(lines, randFrom(r, b64std, 64))
	}
	body = strings.Join(lines, nl)
	block = "-----BEGIN " + label + "-----" + nl + body + nl + "-----END " + label + "-----"
	return block, body
}

// assertNoLeak fails if out contains secret or any 8-byte substring of it.
func assertNoLeak(t *testing.T, out, secret string) {
	t.Helper()
	if secret == "" {
		t.Fatal("empty secret in test case")
	}
	if strings.Contains(out, secret) {
		t.Fatalf("output contains the secret %q:\n%s", secret, out)
	}
	for i := 0; i+8 <= len(secret); i++ {
		if sub := secret[i : i+8]; strings.Contains(out, sub) {
			t.Fatalf("output contains %q, part of secret %q:\n%s", sub, secret, out)
		}
	}
}

// checkFindings verifies the structural invariants every Redact result
// must satisfy.
func checkFindings(t testing.TB, text, out string, fs []Finding) {
	t.Helper()
	prevEnd := 0
	kinds := map[string]bool{}
	for _, k := range Kinds() {
		kinds[k] = true
	}
	var b strings.Builder
	for i, f := range fs {
		if f.Start < prevEnd || f.End <= f.Start || f.End > len(text) {
			t.Fatalf("finding %d %+v out of order/range (prevEnd %d, len %d)", i, f, prevEnd, len(text))
		}
		if !kinds[f.Kind] {
			t.Fatalf("finding %d has unknown kind %q", i, f.Kind)
		}
		b.WriteString(text[prevEnd:f.Start])
		b.WriteString(Placeholder(f.Kind))
		prevEnd = f.End
	}
	b.WriteString(text[prevEnd:])
	if b.String() != out {
		t.Fatalf("output does not match findings:\n got %q\nwant %q", out, b.String())
	}
}
