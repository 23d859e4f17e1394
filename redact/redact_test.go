package redact

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

type planted struct {
	name   string
	text   string // contains secret
	secret string // the part that must not survive
	kind   string
	keep   []string // text that must survive (user, host, NAME, ...)
}

func plantedCases() []planted {
	r := newRand(1)
	var cs []planted
	add := func(name, kind, secret, tmpl string, keep ...string) {
		cs = append(cs, planted{name: name, kind: kind, secret: secret, text: strings.ReplaceAll(tmpl, "{S}", secret), keep: keep})
	}

	ant := "sk-ant-api03-" + randToken(r, b64url, 93) + "AA"
	add("anthropic env", KindAnthropic, ant, "export ANTHROPIC_API_KEY={S}\n", "ANTHROPIC_API_KEY=")
	add("anthropic prose", KindAnthropic, ant, "my key is {S}, please rotate it", "my key is", "please rotate")
	add("anthropic json escaped", KindAnthropic, ant, `{"content":"line one\n{S}\nline three"}`, `line one\n`, `\nline three`)

	add("openai legacy", KindOpenAI, "sk-"+randToken(r, alnum, 48), "OPENAI_API_KEY={S}", "OPENAI_API_KEY=")
	add("openai project", KindOpenAI, "sk-proj-"+randToken(r, b64url, 120), `client = OpenAI(api_key="{S}")`, "client = OpenAI(api_key=")
	add("openai after slash", KindOpenAI, "sk-svcacct-"+randToken(r, alnum, 64), "see /keys/{S} for details", "/keys/")

	add("aws access key id", KindAWS, "AKIA"+randFrom(r, upperDig, 16), "aws_access_key_id = {S}\n", "aws_access_key_id = ")
	add("aws session key id", KindAWS, "ASIA"+randFrom(r, upperDig, 16), `"AccessKeyId": "{S}",`, `"AccessKeyId": "`)
	add("aws secret key", KindAWS, randToken(r, b64std, 40), "[default]\naws_secret_access_key = {S}\n", "aws_secret_access_key = ")
	add("aws secret key env", KindAWS, randToken(r, b64std, 40), "AWS_SECRET_ACCESS_KEY={S}", "AWS_SECRET_ACCESS_KEY=")

	for _, p := range []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"} {
		add("github "+p, KindGitHub, p+randToken(r, alnum, 36), "git remote set-url origin https://x-access-token:{S}@github.com/o/r.git", "github.com/o/r.git")
	}
	add("github fine-grained", KindGitHub, "github_pat_"+randToken(r, alnum, 22)+"_"+randToken(r, alnum, 59), "GH_TOKEN: {S}", "GH_TOKEN: ")
	add("gitlab", KindGitLab, "glpat-"+randToken(r, b64url, 20), "token={S}", "token=")

	for _, p := range []string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-"} {
		add("slack "+p, KindSlack, p+"1234567890-1234567890123-"+randToken(r, alnum, 24), "SLACK_TOKEN='{S}'", "SLACK_TOKEN='")
	}
	hook := "T" + randFrom(r, upperDig, 8) + "/B" + randFrom(r, upperDig, 10) + "/" + randToken(r, alnum, 24)
	add("slack webhook", KindSlack, hook, "curl -X POST https://hooks.slack.com/services/{S} -d @msg.json", "https://hooks.slack.com/", "-d @msg.json")

	add("stripe live", KindStripe, "sk_live_"+randToken(r, alnum, 24), "Stripe.api_key = '{S}'", "Stripe.api_key")
	add("stripe restricted", KindStripe, "rk_live_"+randToken(r, alnum, 24), "key: {S}", "key: ")
	add("stripe test", KindStripe, "sk_test_"+randToken(r, alnum, 24), "use {S} in dev", "use ", " in dev")
	add("stripe publishable", KindStripe, "pk_live_"+randToken(r, alnum, 24), "pk={S}", "pk=")

	add("google api key", KindGoogle, "AIza"+randToken(r, b64url, 35), "https://maps.googleapis.com/maps/api/js?key={S}&callback=init", "maps.googleapis.com", "&callback=init")
	add("google oauth", KindGoogle, "ya29."+randToken(r, b64url, 150), "Authorization: Bearer {S}", "Authorization: Bearer ")

	add("jwt", KindJWT, fakeJWT(r), "Cookie: session={S}; Path=/", "Cookie: session=", "; Path=/")
	add("jwt bearer", KindJWT, fakeJWT(r), `-H "Authorization: Bearer {S}"`, `-H "Authorization: Bearer `)

	for _, label := range []string{"RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY", "ENCRYPTED PRIVATE KEY"} {
		block, body := fakePEM(r, label, "\n")
		add("pem "+label, KindPrivateKey, body, "$ cat key.pem\n"+block+"\n$ ls\n", "$ cat key.pem\n", "\n$ ls\n")
	}
	block, body := fakePEM(r, "PGP PRIVATE KEY BLOCK", "\n")
	block = strings.Replace(block, "-----\n", "-----\nVersion: GnuPG v1.4.11 (GNU/Linux)\n\n", 1)
	add("pem pgp armor", KindPrivateKey, body, "gpg --export-secret-keys\n"+block+"\ndone", "gpg --export-secret-keys", "\ndone")
	block, body = fakePEM(r, "OPENSSH PRIVATE KEY", " ")
	add("pem one line", KindPrivateKey, body, "key: "+block+" (copied)", "key: ", " (copied)")
	block, body = fakePEM(r, "RSA PRIVATE KEY", `\n`)
	add("pem json escaped", KindPrivateKey, body, `{"output":"`+block+`\n"}`, `{"output":"`, `\n"}`)
	block, body = fakePEM(r, "OPENSSH PRIVATE KEY", "\n")
	add("pem truncated", KindPrivateKey, body, block[:len(block)-40]+`", "next": 1`, `"next": 1`)

	add("url password postgres", KindURLPassword, "S3cr3t-Pa55", "DATABASE_URL=postgres://admin:{S}@db.internal:5432/app", "postgres://admin:", "@db.internal:5432/app")
	add("url password redis", KindURLPassword, "q8Zr2LmNw0", "redis://:{S}@cache:6379/0", "redis://:", "@cache:6379/0")
	add("url password https", KindURLPassword, "hunter2hunter2", "git clone https://marco:{S}@git.example.org/repo.git", "https://marco:", "@git.example.org/repo.git")

	add("env dotenv", KindEnvSecret, "hunter2hunter2", "DB_PASSWORD={S}\nDB_HOST=localhost\n", "DB_PASSWORD=", "DB_HOST=localhost")
	add("env letters only", KindEnvSecret, "correcthorsebattery", "export API_TOKEN={S}", "export API_TOKEN=")
	add("env letters only escaped", KindEnvSecret, "correcthorsebattery", `{"text":"# .env\nAPI_TOKEN={S}\nDEBUG=1"}`, `\nAPI_TOKEN=`, `\nDEBUG=1`)
	add("env json", KindEnvSecret, "c0rrect-h0rse", `{"username": "marco", "password": "{S}"}`, `"username": "marco"`, `"password": "`)
	add("env json escaped", KindEnvSecret, "c0rrect-h0rse-2", `{"text":"{\"password\": \"{S}\"}"}`, `{\"password\": \"`, `\"}`)
	add("env yaml", KindEnvSecret, "9f8e7d6c5b4a", "oauth:\n  client_secret: {S}\n  client_id: my-app\n", "client_secret: ", "client_id: my-app")
	add("env shell quoted", KindEnvSecret, "abc123def456", `export GH_TOKEN="{S}"`, `export GH_TOKEN="`)
	add("env go literal", KindEnvSecret, "Tr0ub4dor&3", `	password := "{S}"`, `password := "`)
	add("env python", KindEnvSecret, "Zx9-kQ2-vB7", `api_key = '{S}'`, `api_key = '`)
	add("env bearer header", KindEnvSecret, "abcdef123456opaque", "Authorization: Bearer {S}\r\nHost: api", "Authorization: Bearer ", "Host: api")
	add("env camelCase", KindEnvSecret, "s3cr3t-v4lue", `const config = { authToken: "{S}" }`, "authToken: ")
	add("env query string", KindEnvSecret, "a1b2c3d4e5f6", "GET /callback?access_token={S}&state=xyz", "?access_token=", "&state=xyz")
	add("env rails", KindEnvSecret, randToken(r, hexDigits, 128), "SECRET_KEY_BASE={S}", "SECRET_KEY_BASE=")
	add("env hex in secret context", KindEnvSecret, randFrom(r, hexDigits, 40), "WEBHOOK_SECRET={S}", "WEBHOOK_SECRET=")

	add("high entropy header", KindHighEntropy, randToken(r, b64std, 44)+"=", "X-Signature: {S}\n", "X-Signature: ")
	add("high entropy alnum", KindHighEntropy, randToken(r, alnum, 40), "the session id {S} expired", "the session id ", " expired")
	add("high entropy base64url", KindHighEntropy, randToken(r, b64url, 64), "cookie value {S};", "cookie value ")
	// Issue 29: seven kinds that leaked.
	add("curl -u", KindCLIPassword, "S3cretPass!", "curl -u admin:{S} https://api.example.com/v1", "curl -u admin:", "https://api.example.com/v1")
	add("curl --user quoted", KindCLIPassword, "two words pw", `curl --user 'deploy:{S}' -X POST https://ci.example.org`, "curl --user 'deploy:", "https://ci.example.org")
	add("curl -u json escaped", KindCLIPassword, "hunter2hunter2", `{"command":"curl -s -u marco:{S} https://x.example/api"}`, `"command":"curl -s -u marco:`, "https://x.example/api")
	add("redis-cli -a", KindCLIPassword, "Zk9vLq2pRt", "redis-cli -h cache.internal -p 6379 -a {S} ping", "redis-cli -h cache.internal -p 6379 -a ", " ping")
	add("redis-cli --pass", KindCLIPassword, "qwerty123456", "redis-cli --pass {S} --no-auth-warning info", "redis-cli --pass ", " --no-auth-warning info")
	add("htpasswd -b", KindCLIPassword, "Adm1nPass", "htpasswd -cb /etc/nginx/.htpasswd admin {S}", "htpasswd -cb /etc/nginx/.htpasswd admin ")
	add("htpasswd -nbB", KindCLIPassword, "p4ssw0rd-x", "htpasswd -nbB -C 10 marco {S} > users", "htpasswd -nbB -C 10 marco ", " > users")
	add("twilio api key", KindTwilio, "SK"+randFrom(r, hexDigits, 32), "client = Client({S}, api_secret, account_sid)", "client = Client(", ", api_secret, account_sid)")
	add("shopify admin token", KindShopify, "shpat_"+randFrom(r, hexDigits, 32), "X-Shopify-Access-Token: {S}", "X-Shopify-Access-Token: ")
	add("shopify shared secret", KindShopify, "shpss_"+randFrom(r, hexDigits, 32), "secret {S} rotated", "secret ", " rotated")
	discord := base64.RawURLEncoding.EncodeToString([]byte("1"+randFrom(r, "0123456789", 18))) + "." + randToken(r, b64url, 6) + "." + randToken(r, b64url, 38)
	add("discord bot token", KindDiscord, discord, "client.run('{S}')", "client.run('", "')")
	add("discord bot header", KindDiscord, discord, "Authorization: Bot {S}\n", "Authorization: Bot ")
	sgID, sgSecret := randToken(r, b64url, 22), randToken(r, b64url, 43)
	add("sendgrid whole key", KindSendGrid, "SG."+sgID+"."+sgSecret, "sg = SendGridAPIClient('{S}')", "sg = SendGridAPIClient('", "')")
	add("sendgrid second half", KindSendGrid, sgSecret, "SENDGRID key SG."+sgID+".{S} in use", "SENDGRID key ", " in use")
	return cs
}

func TestRedactPlanted(t *testing.T) {
	for _, c := range plantedCases() {
		t.Run(c.name, func(t *testing.T) {
			out, fs := Redact(c.text)
			checkFindings(t, c.text, out, fs)
			assertNoLeak(t, out, c.secret)
			for _, k := range c.keep {
				if !strings.Contains(out, k) {
					t.Errorf("output lost %q:\n%s", k, out)
				}
			}
			if !slices.ContainsFunc(fs, func(f Finding) bool { return f.Kind == c.kind }) {
				t.Errorf("want a %s finding, got %+v\nout: %s", c.kind, fs, out)
			}
			if !strings.Contains(out, Placeholder(c.kind)) {
				t.Errorf("output lacks %s:\n%s", Placeholder(c.kind), out)
			}
		})
	}
}

// All planted secrets in one document: offsets must refer to the original
// text and every secret must be gone.
func TestRedactCombined(t *testing.T) {
	cs := plantedCases()
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.text)
	}
	text := strings.Join(parts, "\n---\n")
	out, fs := Redact(text)
	checkFindings(t, text, out, fs)
	for _, c := range cs {
		assertNoLeak(t, out, c.secret)
	}
	if len(fs) < len(cs) {
		t.Errorf("got %d findings for %d planted secrets", len(fs), len(cs))
	}
}

// Redacting a JSON-encoded transcript line must leave valid JSON: spans
// never start or end inside an escape sequence.
func TestRedactKeepsJSONValid(t *testing.T) {
	for _, c := range plantedCases() {
		b, err := json.Marshal(map[string]string{"text": c.text})
		if err != nil {
			t.Fatal(err)
		}
		out, _ := Redact(string(b))
		if !json.Valid([]byte(out)) {
			t.Errorf("%s: redacted JSON no longer parses:\n%s", c.name, out)
		}
		var m map[string]string
		if err := json.Unmarshal([]byte(out), &m); err == nil {
			assertNoLeak(t, m["text"], c.secret)
		}
	}
}

func TestRedactIdempotent(t *testing.T) {
	for _, c := range plantedCases() {
		out, _ := Redact(c.text)
		again, fs := Redact(out)
		if again != out || len(fs) != 0 {
			t.Errorf("%s: second pass changed output: %+v\n%s\n%s", c.name, fs, out, again)
		}
	}
}

func TestRedactOverlap(t *testing.T) {
	r := newRand(7)
	key := "sk-ant-api03-" + randToken(r, b64url, 90)
	// env_secret, anthropic and high_entropy all match the same bytes.
	text := "ANTHROPIC_API_KEY=" + key
	out, fs := Redact(text)
	if len(fs) != 1 || fs[0].Kind != KindAnthropic || fs[0].Start != len("ANTHROPIC_API_KEY=") || fs[0].End != len(text) {
		t.Fatalf("want one anthropic finding covering the key, got %+v", fs)
	}
	if out != "ANTHROPIC_API_KEY=[redacted:anthropic]" {
		t.Fatalf("out = %q", out)
	}

	// Overlapping candidates of different extent are merged into one span.
	got := resolve([]Finding{{KindHighEntropy, 10, 30}, {KindEnvSecret, 5, 20}, {KindJWT, 40, 50}, {KindOpenAI, 10, 12}})
	want := []Finding{{KindEnvSecret, 5, 30}, {KindJWT, 40, 50}}
	if !slices.Equal(got, want) {
		t.Fatalf("resolve = %+v, want %+v", got, want)
	}
}

// A key cut off mid-body must not make the redaction run on to the footer
// of some later block.
func TestRedactTruncatedPEMStops(t *testing.T) {
	r := newRand(9)
	first, _ := fakePEM(r, "RSA PRIVATE KEY", "\n")
	second, _ := fakePEM(r, "EC PRIVATE KEY", "\n")
	middle := "\n$ echo done; ls -la ./keys\n"
	text := first[:200] + middle + second
	out, fs := Redact(text)
	checkFindings(t, text, out, fs)
	if len(fs) != 2 || !strings.Contains(out, "$ echo done; ls -la ./keys") {
		t.Fatalf("got %+v\n%s", fs, out)
	}
}

func TestRedactNoSecretsNoAlloc(t *testing.T) {
	text := "func main() {\n\tfmt.Println(\"hello, world\")\n}\n"
	out, fs := Redact(text)
	if out != text || fs != nil {
		t.Fatalf("unexpected change: %q %+v", out, fs)
	}
	if n := testing.AllocsPerRun(100, func() { Redact(text) }); n != 0 {
		t.Errorf("Redact allocated %v times on clean text", n)
	}
}

func TestKinds(t *testing.T) {
	ks := Kinds()
	for _, want := range []string{"anthropic", "openai", "aws", "github", "slack", "stripe", "google", "jwt", "private_key", "url_password", "env_secret", "high_entropy",
		"twilio", "shopify", "discord", "sendgrid"} {
		if !slices.Contains(ks, want) {
			t.Errorf("Kinds() lacks %q", want)
		}
	}
	ks[0] = "mutated"
	if Kinds()[0] == "mutated" {
		t.Error("Kinds() exposes internal slice")
	}
}
