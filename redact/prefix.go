package redact

import (
	"slices"
	"strings"
)

// prefixRule describes a provider token recognised by a fixed prefix
// followed by a run of body bytes.
type prefixRule struct {
	prefix string
	kind   string
	body   uint32 // class bit every body byte must have
	min    int    // minimum body length
	max    int    // maximum body length, 0 = unbounded
	digit  bool   // body must contain a digit (rejects kebab-case words)
	mixed  bool   // body must contain upper and lower case letters
	// keep leaves the prefix visible and redacts only the body; used where
	// the prefix is a host name rather than part of the credential.
	keep bool
}

// prefixRules is checked in order for each candidate start, so longer
// prefixes sharing a first byte must come first ("sk-ant-" before "sk-").
// Body lengths are deliberately looser than the providers' exact formats:
// formats drift, and the prefixes alone are rare in ordinary text.
var prefixRules = slices.Concat(
	[]prefixRule{
		{prefix: "sk-ant-", kind: KindAnthropic, body: cWord, min: 20, digit: true},
		// Legacy keys are sk-<48 alnum>; newer ones are sk-proj-, sk-svcacct-,
		// sk-admin-. Requiring digits and mixed case keeps "sk-some-css-class"
		// out.
		{prefix: "sk-", kind: KindOpenAI, body: cWord, min: 20, digit: true, mixed: true},
	},
	samePrefixRule(prefixRule{kind: KindStripe, body: cAlnum, min: 10}, "sk_live_", "sk_test_", "rk_live_", "rk_test_", "pk_live_"),
	[]prefixRule{{prefix: "whsec_", kind: KindStripe, body: cB64, min: 20}},
	samePrefixRule(prefixRule{kind: KindGitHub, body: cAlnum, min: 30}, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
	[]prefixRule{
		{prefix: "github_pat_", kind: KindGitHub, body: cAlnumU, min: 40},
		{prefix: "glpat-", kind: KindGitLab, body: cWord, min: 20},
	},
	samePrefixRule(prefixRule{kind: KindSlack, body: cAlnumD, min: 10, digit: true}, "xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xapp-"),
	[]prefixRule{{prefix: "hooks.slack.com/", kind: KindSlack, body: cPath, min: 20, digit: true, keep: true}},
	// AWS access key ids are exactly 20 characters.
	samePrefixRule(prefixRule{kind: KindAWS, body: cUpDigit, min: 16, max: 16}, "AKIA", "ASIA"),
	[]prefixRule{
		{prefix: "AIza", kind: KindGoogle, body: cWord, min: 30, max: 40},
		{prefix: "ya29.", kind: KindGoogle, body: cWordDot, min: 20},
		{prefix: "GOCSPX-", kind: KindGoogle, body: cWord, min: 20},
		{prefix: "npm_", kind: KindNPM, body: cAlnum, min: 36, max: 36},
		{prefix: "hf_", kind: KindHuggingFace, body: cAlnum, min: 30, max: 40, mixed: true},
		// Twilio API key SIDs: SK and 32 hex digits.
		{prefix: "SK", kind: KindTwilio, body: cHex, min: 32, max: 32, digit: true},
	},
	// Shopify admin, custom-app, partner and shared-secret tokens.
	samePrefixRule(prefixRule{kind: KindShopify, body: cHex, min: 32, max: 32, digit: true}, "shpat_", "shpca_", "shppa_", "shpss_"),
)

// samePrefixRule is rule once for each of prefixes (a provider's token
// kinds that differ only in their prefix).
func samePrefixRule(rule prefixRule, prefixes ...string) []prefixRule {
	out := make([]prefixRule, len(prefixes))
	for i, p := range prefixes {
		out[i] = rule
		out[i].prefix = p
	}
	return out
}

// rulesByFirst indexes prefixRules by first byte.
var rulesByFirst [256][]prefixRule

func init() {
	for _, r := range prefixRules {
		rulesByFirst[r.prefix[0]] = append(rulesByFirst[r.prefix[0]], r)
	}
}

// prefix tries every detector that can start at i (a token boundary). On a
// match it records the finding and returns its end; otherwise 0.
func (s *scanner) prefix(i int) int {
	text := s.text
	c := text[i]
	switch c {
	case 'e':
		if end := jwtEnd(text, i); end > 0 {
			s.add(KindJWT, i, end)
			return end
		}
		return 0
	case '-':
		return s.pem(i)
	case 'M', 'N', 'O':
		if end := discordEnd(text, i); end > 0 {
			s.add(KindDiscord, i, end)
			return end
		}
	}
	rules := rulesByFirst[c]
	for k := range rules {
		r := &rules[k]
		if !strings.HasPrefix(text[i:], r.prefix) {
			continue // most tries end here: kept inline
		}
		end := r.match(text, i)
		if end == 0 {
			continue
		}
		start := i
		if r.keep {
			start = i + len(r.prefix)
		}
		s.add(r.kind, start, end)
		return end
	}
	return 0
}

// match is the end of the secret that rule r finds at i, where its prefix
// stands, or 0: the prefix must be followed by a body of the rule's bytes
// and length that ends at a token boundary.
func (r *prefixRule) match(text string, i int) int {
	b := i + len(r.prefix)
	end := runEnd(text, b, r.body)
	n := end - b
	if n < r.min || (r.max > 0 && n > r.max) {
		return 0
	}
	// A secret must end at a token boundary; "AKIA" + 16 capitals
	// followed by more letters is a word, not a key id.
	if end < len(text) && class[text[end]]&cAlnum != 0 {
		return 0
	}
	if (r.digit || r.mixed) && !bodyOK(text[b:end], r.digit, r.mixed) {
		return 0
	}
	return end
}

func bodyOK(body string, digit, mixed bool) bool {
	var seen uint32
	for i := 0; i < len(body); i++ {
		seen |= class[body[i]]
	}
	if digit && seen&cDigit == 0 {
		return false
	}
	if mixed && (seen&cUpper == 0 || seen&cLower == 0) {
		return false
	}
	return true
}

// jwtEnd matches header.payload.signature where header starts "eyJ"
// (base64url of `{"`) and payload starts "ey". The signature may be empty
// (unsigned tokens still authorise). Returns the end or 0.
func jwtEnd(text string, i int) int {
	if !strings.HasPrefix(text[i:], "eyJ") {
		return 0
	}
	h := runEnd(text, i, cWord)
	if h-i < 10 || h >= len(text) || text[h] != '.' {
		return 0
	}
	p := h + 1
	if !strings.HasPrefix(text[p:], "ey") {
		return 0
	}
	pe := runEnd(text, p, cWord)
	if pe-p < 10 || pe >= len(text) || text[pe] != '.' {
		return 0
	}
	return runEnd(text, pe+1, cWord)
}

// discordEnd matches a Discord bot token at i: the bot's id in base64
// (23 to 28 bytes, starting M, N or O as an 18- or 19-digit id does), a
// dot, a 6- or 7-byte timestamp, a dot and a 27- to 40-byte HMAC.
// Returns the end or 0.
func discordEnd(text string, i int) int {
	a := runEnd(text, i, cWord)
	if n := a - i; n < 23 || n > 28 || a >= len(text) || text[a] != '.' || !bodyOK(text[i:a], true, true) {
		return 0
	}
	b := runEnd(text, a+1, cWord)
	if n := b - a - 1; n < 6 || n > 7 || b >= len(text) || text[b] != '.' {
		return 0
	}
	c := runEnd(text, b+1, cWord)
	if n := c - b - 1; n < 27 || n > 40 || (c < len(text) && class[text[c]]&cAlnum != 0) {
		return 0
	}
	return c
}

// sendGridEnd matches a SendGrid API key at i ("SG.", a 16- to 32-byte
// id, a dot and a 40- to 50-byte secret): the whole key, both halves.
// Returns the end or 0.
func sendGridEnd(text string, i int) int {
	if !strings.HasPrefix(text[i:], "SG.") {
		return 0
	}
	a := runEnd(text, i+3, cWord)
	if n := a - i - 3; n < 16 || n > 32 || a >= len(text) || text[a] != '.' {
		return 0
	}
	b := runEnd(text, a+1, cWord)
	if n := b - a - 1; n < 40 || n > 50 || (b < len(text) && class[text[b]]&cAlnum != 0) {
		return 0
	}
	return b
}
