package redact

import (
	"strings"
	"testing"
)

// Transcripts are mostly code, logs, paths and hashes. None of these
// samples contains a secret, so Redact must leave every one untouched.
var cleanSamples = map[string]string{
	"go.sum": `charm.land/bubbletea/v2 v2.0.10 h1:Jq3vMqbDxwwVHaFPWQ4/0bqrYZ7AMNOwCGVGYdYuuYc=
github.com/RoaringBitmap/roaring/v2 v2.14.5 h1:ckd0o545JqDPeVJDgAgwm8CL3fNTfx+OZDBxxh1Tl2Y=
github.com/RoaringBitmap/roaring/v2 v2.14.5/go.mod h1:oMvV6omPWr+2ifRdeZvVJyaz+aoEUopyv5iH0u/+wbY=
github.com/google/uuid v1.6.0 h1:NIvaJDMOsjHA8n1jAhLSgzrAzy1Hgr+hNrb57e+94F0=
github.com/google/uuid v1.6.0/go.mod h1:TIyPZe4MgqvfeYDBFedMoGGpEw/LqOeaOT+nhxU+yHo=
golang.org/x/sys v0.48.0 h1:KRGGEu3fY9E5+WJdXOqvwJBkGzKXUXyCjuPuQ8BFpXU=
modernc.org/sqlite v1.60.1 h1:0LjmE1J8GEnGvv5hjgcVgJRAZGMrXi4rlO54DmIZRVs=
github.com/charmbracelet/ultraviolet v0.0.0-20260811164956-006e29f97886 h1:YbD3KGp0yv+7Mu6Uw6Ev6ZgJAhx8K3nR5YcqcRWdcCc=
`,
	"uuids and ids": `{"parentUuid":"948b4049-6323-44df-9a10-62503cacfd05","sessionId":"ae4a77f8-aedd-4bc1-888f-c94edc91af04",
"toolUseID":"758443cf-6267-4641-baa0-6855f8fb8247","requestId":"req_011CY4c6Sx3JfFLyB6pQrsTn","id":"msg_01XFDUDYJgAACzvnptvVoYEL",
"tool_use_id":"toolu_01LkKqpUD829m724o5oSeN7Mab","agent":"agent_msg_01QVA9ZtQhiqWU7kKBrXThFY","call":"srvtoolu_01MXGgXSAnB59BrskWn8JGVu",
"usage":{"input_tokens":3,"cache_creation_input_tokens":23456,"cache_read_input_tokens":104857,"output_tokens":512},"max_tokens":32000}`,
	"git log": `commit 3f9a8c2e1b7d4f6a9e0c5b8d2a1f3e7c9b4d6a8e
Merge: 1a2b3c4 5d6e7f8
Author: Marco Rossi <marco@example.com>
Date:   Thu Feb 12 14:11:57 2026 +0100

    redact: add high-entropy detector (closes #42)

commit e83c5163316f89bfbde7d9ab23ca2e25604af290
 internal/index/bleve.go | 12 ++++++------
 2 files changed, 7 insertions(+), 6 deletions(-)
diff --git a/redact/scan.go b/redact/scan.go
index 4b825dc642cb6eb9a060e54bf8d69288fbee4904..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 100644`,
	"paths": `/home/marco/projects/spotter-worktrees/spotter-4te/lib/spotter_web/controllers/session_hook_controller.ex
/Users/Marco/Library/Application Support/Code/User/globalStorage/state.vscdb
./node_modules/.pnpm/@babel+core@7.23.0/node_modules/@babel/core/lib/index.js
C:\Users\marco\AppData\Local\Temp\go-build3847261092\b001\exe\main.exe
/tmp/go-build1234567890/b001/_pkg_.a ~/.claude/projects/-home-marco-projects-spotter/491e126e-1e71-469c-ade2-fcc8af567c74.jsonl
src/components/UserProfileCard2/hooks/useProfileData3Loader/index.test.tsx`,
	"go code": `package auth

func (s *Server) handleOAuth2CallbackForProviderV3(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	password := os.Getenv("DB_PASSWORD")
	secret := cfg.ClientSecret
	apiKey, err := loadAPIKey(ctx)
	authToken = strings.TrimSpace(authToken)
	var accessKey string
	if token == "" || password != "" {
		return
	}
	creds := Credentials{Token: tok, Password: pw, APIKey: apiKey}
	_ = creds
	tokens := tokenize(input)
	maxTokens := 4096
	passwordHash := sha256.Sum256([]byte(password))
	secretName := "db-credentials"
	tokenizerName := "cl100k_base"
	authorName := "marco"
	Token string ` + "`json:\"token\"`" + `
	TestRedact_HighEntropy_Base64Tokens2(t)
	BenchmarkParseJSON2Struct_1024Bytes_WithAllocs(b)
}`,
	"typescript": `export interface AuthConfig {
  token: string;
  apiKey?: string | undefined;
  password: Secret<string>;
  credentials: Credential[];
  auth: AuthProvider;
}
const apiKey = process.env.OPENAI_API_KEY!;
const token = req.headers.authorization?.split(" ")[1];
const client = new Client({ auth: opts?.auth, token: this.token, secret: config.secret });
headers["Authorization"] = "Bearer " + token;
const [password, setPassword] = useState<string>("");
function getUserById2FromDatabaseWithCache3Layers() {}
useState4ComponentDidMount2useEffect3Hook();
<div className="sm:grid-cols-2 md:grid-cols-4 text-gray-900 dark:bg-slate-800" />`,
	"python and shell": `import os
password = os.environ["DB_PASSWORD"]
api_key = os.getenv("API_KEY")
token = get_token()
SECRET_KEY = env("DJANGO_SECRET_KEY")
export GITHUB_TOKEN=$(gh auth token)
export API_KEY="${API_KEY:-}"
export AUTH_TOKEN=$AUTH_TOKEN
curl -H "Authorization: Bearer $TOKEN" https://api.example.com/v1/items?page=2&per_page=100
PWD=/home/marco/projects/cairn
OLDPWD=/home/marco
docker run -e POSTGRES_PASSWORD -p 5432:5432 postgres:16`,
	"placeholders": `OPENAI_API_KEY=sk-...
ANTHROPIC_API_KEY=<your-api-key>
DB_PASSWORD=changeme
SECRET_TOKEN=xxxxxxxxxxxxxxxx
API_KEY=your_api_key_here
AUTH_TOKEN=********
"password": "",
"password": "<password>",
"token": "string",
"apiKey": "YOUR_API_KEY",
password: ${{ secrets.DB_PASSWORD }}
token: "{{ .Values.token }}"
client_secret: REPLACE_ME
"secret": true,
"auth": null,
postgres://user:password@localhost:5432/db
redis://:${REDIS_PASSWORD}@redis:6379
https://user:<token>@github.com/org/repo
mysql://root:***@127.0.0.1/app`,
	"yaml and k8s": `apiVersion: v1
kind: Pod
spec:
  containers:
    - name: app
      image: ghcr.io/org/app@sha256:9b2a6b3d5f0e8c1a7d4e2f6b8c0a3d5e7f9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d
      env:
        - name: DB_PASSWORD
          valueFrom:
            secretKeyRef:
              name: db-credentials
              key: password
  secretName: tls-secret
auth:
  type: oauth2
  tokenUrl: https://auth.example.com/oauth/token
  token_type: bearer
`,
	"lockfiles": `"node_modules/react": {
  "version": "18.2.0",
  "resolved": "https://registry.npmjs.org/react/-/react-18.2.0.tgz",
  "integrity": "sha512-/3IjMdb2L9QbBdWiW5e3P2/npwMBaU9mHCSCUzNln0ZCYbcfTsGbTJrU/kGemdH2IWmB2ioZ+zkxtmq6g09fGQ=="
},
pip install requests==2.31.0 --hash=sha256:58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f
<script src="https://cdn.example.com/lib.js" integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC"></script>`,
	"keys that are public": `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl marco@laptop
ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7vbqajDRETrF9aZ1bEGMwYhPn+ReSQp1BDUYVJnLQ3JtpbGtVu4U marco@host
-----BEGIN CERTIFICATE-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo
-----END CERTIFICATE-----
-----BEGIN PGP PUBLIC KEY BLOCK-----
Version: GnuPG v1.4.11 (GNU/Linux)

mQINBGBkZXNhbXBsZWtleWZvcnRlc3RpbmdwdXJwb3Nlc29ubHkxMjM0NTY3ODkw
Zk3q9Lm2Xv8Rt6Wp4Yb1Nc7Hd5Jf0Gs2Ka9Qe3UxZk3q9Lm2Xv8Rt6Wp4Yb1Nc7H
=a1B2
-----END PGP PUBLIC KEY BLOCK-----
-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo
-----END PUBLIC KEY-----`,
	"logs": `2026-02-12T14:11:57.624Z INFO  server started addr=127.0.0.1:8080 pid=4242 version=v0.0.0-20260811164956-006e29f97886
2026-02-12T14:11:58.001Z DEBUG request method=GET path=/api/v1/sessions/ae4a77f8-aedd-4bc1-888f-c94edc91af04 status=200 dur=3.2ms
goroutine 1 [running]:
main.main()
	/home/marco/cairn/main.go:42 +0x1d
panic: runtime error: index out of range [5] with length 3
--- FAIL: TestRedactPlanted/url_password_https (0.00s)
ok  	cairn/redact	0.006s
x86_64-unknown-linux-gnu-gcc12-O2-march pod/web-7d4b9c8f6d-x2k9p Running
token usage: 12,345 tokens (input 10,000 / output 2,345)
The auth: flow is handled by the middleware; password: see the vault.`,
	"prose": `To authenticate, set the token in your environment. The secret: never commit it.
Passwords must be at least 12 characters. Use a password manager.
The author of the tokenizer said: "the API key is rotated weekly".
Base64 alphabet: ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/`,
	"config and schemas": `const schema = z.object({ token: z.string().min(1), password: yup.string().required() })
const apiKey = import.meta.env.VITE_API_KEY
client := github.NewClient(nil).WithAuthToken(os.Getenv("GITHUB_TOKEN"))
cfg := Config{Token: os.Getenv("TOKEN"), Password: cfg.Password}
self.api_key = api_key
API_KEY = settings.API_KEY
GOOGLE_APPLICATION_CREDENTIALS=/etc/gcp/key.json
CREDENTIALS_FILE=creds.json
credentials: ./creds.json
AUTH_MODE=password
token: ${{ secrets.GITHUB_TOKEN }}
PASSWORD=$(openssl rand -hex 16)
password_hash: $2b$12$abcdefghijklmnopqrstuv
level=info msg="token refreshed" token_ttl=3600 auth=ok
passwd:         files systemd
auth: oauth2
"authorization": "required", "auth": "oauth2", "token_type": "Bearer", "expires_in": 3599
<input type="password" name="password" autocomplete="current-password" value="">
"password": "Enter your password", "token": "Token", "secret": "Secret"
pub fn new(token: &str, password: Option<String>) -> Self { Self { token: token.to_owned() } }`,
	// Near misses of the command-line and provider rules (issue 29): a
	// curl user without a password (curl asks), variables, htpasswd
	// without -b (it asks), redis-cli with its password from the
	// environment, Twilio account SIDs (AC…, public), SKU codes, dotted
	// names and versions.
	"command near misses": `curl -u marco https://api.example.com/v1/items
curl -u "$API_USER:$API_PASS" https://api.example.com
curl --user ${CI_USER}:${CI_TOKEN} -X POST https://ci.example.org/build
curl -s -o /dev/null -w "%{http_code}" https://example.com/health
curl -fsSL https://deb.nodesource.com/setup_20.x | sudo -E bash -
htpasswd -c /etc/nginx/.htpasswd admin
htpasswd -D /etc/nginx/.htpasswd olduser
redis-cli -h cache.internal -p 6379 ping
redis-cli -a "$REDIS_PASSWORD" --no-auth-warning info
REDISCLI_AUTH=$REDIS_PASSWORD redis-cli info
account_sid = "AC0123456789abcdef0123456789abcdef"
SKU-2024-0001 SKIP_PREFLIGHT_CHECK=true SKELETON_LOADER_V2
MANIFEST.in Makefile.am NODE_OPTIONS=--max-old-space-size=4096
SG.1.2 SG.sendgrid.config MyComponent.module.css
O.K. Nginx.conf.d/default.conf MIT.LICENSE.txt`,
	"markdown and urls": `See https://github.com/anthropics/claude-code/blob/3f9a8c2e1b7d4f6a9e0c5b8d2a1f3e7c9b4d6a8e/README.md#L10
git@github.com:marco/cairn.git https://marco@github.com/marco/cairn ssh://git@github.com:22/marco/cairn.git
http://localhost:8080/callback?code=abc&state=xyz https://example.com:8443@evil.example
[link](https://docs.example.com/v2/auth/tokens#refresh) | Token | Description |`,
}

func TestNoFalsePositives(t *testing.T) {
	for name, text := range cleanSamples {
		t.Run(name, func(t *testing.T) {
			out, fs := Redact(text)
			for _, f := range fs {
				t.Errorf("false positive %s: %q", f.Kind, text[f.Start:f.End])
			}
			if len(fs) == 0 && out != text {
				t.Error("text changed without findings")
			}
		})
	}
}

// The same clean samples wrapped in JSON (as in raw transcript lines) must
// stay clean too.
func TestNoFalsePositivesJSONEscaped(t *testing.T) {
	for name, text := range cleanSamples {
		esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(text)
		line := `{"type":"tool_result","content":"` + esc + `"}`
		for _, f := range Find(line) {
			t.Errorf("%s: false positive %s: %q", name, f.Kind, line[f.Start:f.End])
		}
	}
}
