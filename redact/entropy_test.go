package redact

import (
	"fmt"
	"testing"
)

// Random tokens of the lengths real keys have must be caught nearly always.
func TestEntropyRecall(t *testing.T) {
	r := newRand(42)
	for _, tc := range []struct {
		alphabet string
		n        int
		minRate  float64
	}{
		{alnum, 32, 0.98},
		{alnum, 40, 0.99},
		{alnum, 64, 0.999},
		{b64url, 43, 0.99},
		{b64std, 44, 0.97}, // a leading/trailing '/' or '+' is trimmed
		{b64std, 88, 0.99},
	} {
		const trials = 5000
		hits := 0
		for range trials {
			tok := randFrom(r, tc.alphabet, tc.n)
			if fs := Find("value " + tok + " end"); len(fs) == 1 && fs[0].Kind == KindHighEntropy {
				hits++
			}
		}
		if rate := float64(hits) / trials; rate < tc.minRate {
			t.Errorf("alphabet %d, len %d: detected %.2f%%, want >= %.1f%%", len(tc.alphabet), tc.n, 100*rate, 100*tc.minRate)
		}
	}
}

// Long identifiers and other structured tokens must not be mistaken for
// random secrets.
func TestEntropyRejectsStructuredTokens(t *testing.T) {
	r := newRand(3)
	var toks []string
	for range 200 {
		toks = append(toks,
			randFrom(r, hexDigits, 40),                          // git SHA
			randFrom(r, hexDigits, 64),                          // sha256
			randFrom(r, hexDigits, 128),                         // sha512
			randFrom(r, "0123456789ABCDEF", 64),                 // upper-case digest
			uuid(r)+"-"+uuid(r),                                 // joined uuids
			"sha512-"+randFrom(r, b64std, 86)+"==",              // npm integrity
			"toolu_01"+randFrom(r, alnum, 24),                   // Anthropic ids
			"AAAAC3NzaC1lZDI1NTE5AAAAI"+randFrom(r, b64std, 43), // ssh public key
		)
	}
	toks = append(toks,
		"handleOAuth2CallbackForProviderV3",
		"TestRedact_HighEntropy_Base64Tokens2",
		"BenchmarkParseJSON2Struct_1024Bytes_WithAllocs",
		"XMLHttpRequest2DownloadProgressEventV8Handler",
		"k8sClusterRoleBinding4ServiceAccountKubeSystem",
		"getUserById2FromDatabaseWithCache3Layers",
		"Int32ToFloat64ConversionHelperV2Test",
		"TestFuzzRedact_Seed123_InvalidUTF8_Case4",
		"useState4ComponentDidMount2useEffect3Hook",
		"Ed25519VerificationKey2018Ed25519Signature2020x",
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
		"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1Ba",
		"x86_64-unknown-linux-gnu-gcc12-O2-march-native",
		"/home/USER/projects/spotter-worktrees/spotter-4te/lib/spotter_web/Live2View",
		"src/components/UserProfileCard2/hooks/useProfile3/index",
		"MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA",
	)
	for _, tok := range toks {
		text := "x " + tok + " y"
		if fs := Find(text); len(fs) > 0 {
			t.Errorf("flagged %q as %s", tok, fs[0].Kind)
		}
	}
}

func uuid(r interface{ IntN(int) int }) string {
	h := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = hexDigits[r.IntN(16)]
		}
		return string(b)
	}
	return fmt.Sprintf("%s-%s-%s-%s-%s", h(8), h(4), h(4), h(4), h(12))
}

func TestEntropyContexts(t *testing.T) {
	r := newRand(5)
	tok := randToken(r, b64std, 43)
	for _, text := range []string{
		"golang.org/x/net v0.55.0 h1:" + tok + "=",
		`<img src="data:image/png;base64,` + tok + `==">`,
	} {
		if fs := Find(text); len(fs) > 0 {
			t.Errorf("flagged %q in %q", text[fs[0].Start:fs[0].End], text)
		}
	}
	// Padding is part of the secret.
	text := "sig=" + tok + "== ok"
	out, fs := Redact(text)
	if len(fs) != 1 || out != "sig=[redacted:high_entropy] ok" {
		t.Errorf("got %q %+v", out, fs)
	}
}
