// Package redact removes secrets (API keys, tokens, passwords, private keys)
// from transcript text before it is stored in cairn's search index or
// memories.
//
// The detectors, by decreasing specificity:
//   - provider tokens recognised by prefix (sk-ant-, sk-, ghp_, xoxb-,
//     AKIA, AIza, ya29., sk_live_, Twilio SK…, Shopify shpat_…, SendGrid
//     SG.x.y, ...) or by shape (Discord bot tokens; prefix.go);
//   - JWTs (eyJ...eyJ...sig) and whole PEM private key blocks (pem.go);
//   - the password in scheme://user:password@host (url.go);
//   - the value of a secret-looking NAME=value, NAME: value or
//     "name": "value" pair (env.go);
//   - passwords given on a command line: mysql -p<pw>, sshpass -p,
//     --password=<pw>, curl -u user:<pw>, redis-cli -a <pw>,
//     htpasswd -b file user <pw> (cliflags.go);
//   - long random-looking tokens (entropy.go).
//
// Precision is preferred over recall: transcripts are dominated by code,
// paths, UUIDs, hashes and go.sum lines, and every false positive punches a
// hole in search results. Deliberately left alone: hex strings outside a
// NAME=value context (git SHAs, digests), go.sum and npm/SRI integrity
// hashes (sha512-...), SSH public keys, certificates and public key blocks,
// UUIDs, API object ids (msg_01..., toolu_01...), identifiers, paths and
// placeholder values (<your-key>, ${VAR}, xxxx, changeme).
//
// Redact runs on every indexed entry, so the text is walked once by a
// hand-written byte-class scanner and the detectors only run at the few
// candidate positions it finds (scan.go). No regular expressions are used.
// Spans never start or end inside a JSON escape, so redacting raw JSONL
// keeps it valid JSON.
package redact

import (
	"slices"
	"strings"
)

// Finding describes one redacted secret. Start and End are byte offsets into
// the original input (End exclusive). The secret itself is never recorded.
type Finding struct {
	Kind       string
	Start, End int
}

// Kind names. Each detector reports exactly one of these.
const (
	KindPrivateKey  = "private_key"
	KindAnthropic   = "anthropic"
	KindOpenAI      = "openai"
	KindGitHub      = "github"
	KindGitLab      = "gitlab"
	KindSlack       = "slack"
	KindStripe      = "stripe"
	KindGoogle      = "google"
	KindAWS         = "aws"
	KindNPM         = "npm"
	KindHuggingFace = "huggingface"
	KindTwilio      = "twilio"
	KindShopify     = "shopify"
	KindDiscord     = "discord"
	KindSendGrid    = "sendgrid"
	KindJWT         = "jwt"
	KindURLPassword = "url_password"
	KindEnvSecret   = "env_secret"
	KindCLIPassword = "cli_password"
	KindHighEntropy = "high_entropy"
)

// kindOrder lists kinds from most to least specific. When candidates
// overlap and start at the same byte, the more specific kind names the
// merged finding (an API key assigned to API_KEY= is reported as the
// provider's key, not as a generic env_secret).
var kindOrder = []string{
	KindPrivateKey, KindAnthropic, KindOpenAI, KindGitHub, KindGitLab,
	KindSlack, KindStripe, KindGoogle, KindAWS, KindNPM, KindHuggingFace,
	KindTwilio, KindShopify, KindDiscord, KindSendGrid, KindJWT, KindURLPassword, KindCLIPassword, KindEnvSecret, KindHighEntropy,
}

// Kinds lists every kind name Redact can emit.
func Kinds() []string { return slices.Clone(kindOrder) }

func kindRank(k string) int {
	for i, o := range kindOrder {
		if o == k {
			return i
		}
	}
	return len(kindOrder)
}

// Placeholder returns the text that replaces a secret of the given kind.
func Placeholder(kind string) string { return "[redacted:" + kind + "]" }

// Redact returns text with every secret replaced by "[redacted:<kind>]" and
// the findings (kind and location in text), never the secret itself.
// Findings are sorted by Start and never overlap. When nothing is found the
// input string is returned as is, without allocating.
func Redact(text string) (string, []Finding) {
	fs := resolve(scan(text))
	if len(fs) == 0 {
		return text, nil
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, f := range fs {
		b.WriteString(text[last:f.Start])
		b.WriteString(Placeholder(f.Kind))
		last = f.End
	}
	b.WriteString(text[last:])
	return b.String(), fs
}

// Find reports the findings Redact would produce without building the
// redacted text.
func Find(text string) []Finding { return resolve(scan(text)) }

// resolve sorts candidates and merges overlapping ones. The winner of a
// cluster is the earliest-starting candidate (ties: most specific kind, then
// longest) but the merged span covers the union of the cluster, so no tail
// of a secret found by a losing detector can survive in the output.
func resolve(fs []Finding) []Finding {
	if len(fs) <= 1 {
		return fs
	}
	slices.SortFunc(fs, func(a, b Finding) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		if ra, rb := kindRank(a.Kind), kindRank(b.Kind); ra != rb {
			return ra - rb
		}
		return b.End - a.End
	})
	out := fs[:1]
	for _, f := range fs[1:] {
		cur := &out[len(out)-1]
		if f.Start < cur.End {
			cur.End = max(cur.End, f.End)
			continue
		}
		out = append(out, f)
	}
	return out
}
