package redact

import "strings"

const (
	maxNameLen  = 64  // longest NAME considered in NAME=value
	maxValueLen = 512 // values longer than this are left to other detectors
	minValueLen = 6   // shorter values are too weak to be worth a hole
	// maxEscapeRun bounds backslash runs taken as (nested) JSON escaping,
	// so adversarial input cannot make each separator scan far.
	maxEscapeRun = 16
)

// secretNames are the normalised (lower case, no '_', '-' or '.') keywords
// that make a NAME secret-looking. The keyword must END the name, optionally
// followed by one of nameSuffixes: "GITHUB_TOKEN", "dbPassword",
// "SECRET_KEY", "credentials" qualify; "token_type", "tokenizer",
// "author", "secret_name", "password_file" do not. Matching the end rather
// than any substring is what keeps JSON keys like "max_tokens" or "author"
// from flooding the index with holes.
var secretNames = []string{
	"secret", "token", "password", "passwd", "passphrase", "pwd",
	"apikey", "privatekey", "accesskey", "credential", "auth",
	"authorization",
}

var nameSuffixes = []string{"s", "key", "keybase", "value"}

// sep handles a ':' or '=' at p: either the "://" of a URL or the
// separator of a NAME=value / NAME: value / "name": "value" pair. It runs
// on every separator, so the common exits stay inline.
func (s *scanner) sep(p int) {
	text := s.text
	var v int // value search start
	if text[p] == ':' {
		if p+2 < len(text) && text[p+1] == '/' && text[p+2] == '/' {
			s.url(p)
			return
		}
		v = colonValue(text, p)
	} else {
		v = equalsValue(text, p)
	}
	if v < 0 {
		return
	}
	nameStart, nameEnd := lookbackName(text, p)
	if nameEnd-nameStart < 3 {
		return
	}
	if nameStart >= 2 && text[nameStart-2:nameStart] == "//" {
		return // user name in scheme://user:password@host, see url.go
	}
	name := text[nameStart:nameEnd]
	if class[name[len(name)-1]]&cKeyEnd == 0 {
		return // fast path: no keyword or suffix ends with this byte
	}
	var buf [normTailLen]byte
	norm := string(normTail(&buf, name)) // short: stays on the stack
	if !secretName(norm) {
		return
	}
	s.pairValue(p, v, nameStart, name, norm)
}

// colonValue returns where the value after the ':' at p starts, or -1 when
// the ':' separates no pair.
func colonValue(text string, p int) int {
	v := p + 1
	if p+1 < len(text) {
		switch text[p+1] {
		case ':': // C++/Rust paths, IPv6
			return -1
		case '=': // Go :=
			v = p + 2
		}
	}
	if p > 0 && text[p-1] == ':' {
		return -1
	}
	return v
}

// notAssignAfter holds the bytes that, just before an '=', make it a
// comparison or compound assignment, or Go := (handled at ':').
var notAssignAfter = [256]bool{
	'=': true, '!': true, '<': true, '>': true, ':': true, '+': true, '-': true, '*': true,
	'/': true, '%': true, '&': true, '|': true, '^': true, '~': true, '?': true,
}

// equalsValue returns where the value after the '=' at p starts, or -1 when
// the '=' is part of an operator rather than an assignment.
func equalsValue(text string, p int) int {
	v := p + 1
	if p+1 < len(text) {
		switch text[p+1] {
		case '=', '~': // ==, =~
			return -1
		case '>': // Ruby/PHP "key" => "value"
			v = p + 2
		}
	}
	if p > 0 && notAssignAfter[text[p-1]] {
		return -1
	}
	return v
}

// pairValue adds the value of the secret-looking name starting at
// nameStart (normalised tail norm) when it is a real secret.
func (s *scanner) pairValue(p, v, nameStart int, name, norm string) {
	text := s.text
	vs, ve, quoted, scheme := valueSpan(text, v)
	if ve <= vs {
		return
	}
	val := text[vs:ve]
	shell := text[p] == '=' && isShellAssign(text, nameStart, p)
	literal := shell || scheme || isLineValue(text, nameStart, ve) || (text[p] == '=' && isQueryParam(text, nameStart))
	if !secretValue(val, quoted, literal, shell && isEnvStyle(name)) {
		return
	}
	kind := KindEnvSecret
	if strings.HasSuffix(norm, "secretaccesskey") && isAWSSecret(val) {
		kind = KindAWS
	}
	s.add(kind, vs, ve)
}

// lookbackName returns the NAME before the separator at p, skipping
// whitespace and a closing quote (possibly JSON-escaped: \"name\": ...).
func lookbackName(text string, p int) (int, int) {
	k := p - 1
	for sp := 0; k >= 0 && sp < 4 && (text[k] == ' ' || text[k] == '\t'); sp++ {
		k--
	}
	if k >= 0 && isQuote(text[k]) {
		k = skipBackslashesBack(text, k-1) // JSON-escaped, possibly nested
	}
	end := k + 1
	for k >= 0 && end-k <= maxNameLen && class[text[k]]&cName != 0 {
		k--
	}
	start := k + 1
	if start > 0 && start < end && text[start-1] == '\\' {
		start = min(skipEscape(text, start), end) // `\nDB_PASSWORD=`: drop the 'n'
	}
	return start, end
}

// skipBackslashesBack steps back from k over at most maxEscapeRun
// backslashes and returns the index of the byte before them.
func skipBackslashesBack(text string, k int) int {
	for b := 0; k >= 0 && b < maxEscapeRun && text[k] == '\\'; b++ {
		k--
	}
	return k
}

// normTailLen bounds the normalised name tail we compare: the longest
// keyword plus suffix ("authorization"+"keybase") fits, and 32 bytes or
// less keeps the string conversion off the heap.
const normTailLen = 24

// normTail writes the last normTailLen bytes of name, lower-cased and
// without '_', '-', '.', to the end of buf and returns them.
func normTail(buf *[normTailLen]byte, name string) []byte {
	k := len(buf)
	for i := len(name) - 1; i >= 0 && k > 0; i-- {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		k--
		buf[k] = c
	}
	return buf[k:]
}

func secretName(s string) bool {
	if s == "pwd" || s == "oldpwd" {
		return false // shell working directory, not a password
	}
	if hasSecretSuffix(s) {
		return true
	}
	for _, suf := range nameSuffixes {
		if len(s) > len(suf) && s[len(s)-len(suf):] == suf && hasSecretSuffix(s[:len(s)-len(suf)]) {
			return true
		}
	}
	return false
}

// namesByLast indexes secretNames by last byte: most names end in a byte no
// keyword ends in, and the rest are compared against one or two keywords.
var namesByLast [256][]string

func init() {
	for _, k := range secretNames {
		namesByLast[k[len(k)-1]] = append(namesByLast[k[len(k)-1]], k)
	}
}

func hasSecretSuffix(s string) bool {
	if s == "" {
		return false
	}
	for _, k := range namesByLast[s[len(s)-1]] {
		if len(s) >= len(k) && s[len(s)-len(k):] == k {
			return true
		}
	}
	return false
}

// isShellAssign reports whether the '=' at p is a shell or dotenv
// assignment: no space on either side, at the start of a line, after
// "export " or whitespace, or at the start of a quoted string. "TOKEN_LINKED = TTOKEN_LINKED" is code.
func isShellAssign(text string, nameStart, p int) bool {
	if p+1 >= len(text) || text[p+1] == ' ' || text[p+1] == '\t' || text[p-1] == ' ' || text[p-1] == '\t' {
		return false
	}
	if nameStart == 0 {
		return true
	}
	switch text[nameStart-1] {
	case ' ', '\t', '\n', '"', '\'', '`': // quoted: docker-compose `- "API_KEY=..."`, JSON strings
		return true
	case 'n', 't': // JSON-escaped line start: `\nAPI_TOKEN=`
		return nameStart >= 2 && text[nameStart-2] == '\\'
	}
	return false
}

// isLineValue reports whether NAME starts its line (after indentation or a
// "- " list marker) and the value ends it: YAML, INI, HTTP headers. There an
// unquoted value is a literal; in code ("Token: tok," or "x = y") it is an
// identifier.
func isLineValue(text string, nameStart, ve int) bool {
	return startsLine(text, nameStart) && endsLine(text, ve)
}

// startsLine reports whether only indentation, list dashes and quotes stand
// between the start of the line (or of the text) and nameStart.
func startsLine(text string, nameStart int) bool {
	k := nameStart - 1
	for k >= 0 && (text[k] == ' ' || text[k] == '\t' || text[k] == '-' || isQuote(text[k])) {
		k--
	}
	return k < 0 || text[k] == '\n' || (k >= 1 && text[k-1] == '\\' && text[k] == 'n')
}

// endsLine reports whether the value ending at ve ends its line: the text
// ends, a line break (maybe JSON-escaped) follows, or trailing blanks and a
// comment do.
func endsLine(text string, ve int) bool {
	if ve >= len(text) {
		return true
	}
	switch text[ve] {
	case '\n', '\r':
		return true
	case '\\':
		return ve+1 < len(text) && (text[ve+1] == 'n' || text[ve+1] == 'r')
	case ' ', '\t':
		return blanksEndLine(text, ve)
	}
	return false
}

// blanksEndLine reports whether the blanks from e on run to the end of the
// text, a line break or a '#' comment.
func blanksEndLine(text string, e int) bool {
	for ; e < len(text); e++ {
		switch text[e] {
		case ' ', '\t':
			continue
		case '\n', '\r', '#':
			return true
		}
		return false
	}
	return true
}

// isQueryParam reports whether NAME follows '?' or '&' (a URL query).
func isQueryParam(text string, nameStart int) bool {
	return nameStart > 0 && (text[nameStart-1] == '?' || text[nameStart-1] == '&')
}

// isEnvStyle reports whether name looks like an environment variable
// (no lower-case letters). Shell and .env assignments of such names are
// literal values even without quotes, unlike code where an unquoted right
// hand side is usually an identifier.
func isEnvStyle(name string) bool {
	for i := 0; i < len(name); i++ {
		if class[name[i]]&cLower != 0 {
			return false
		}
	}
	return true
}

// valueSpan locates the value after a separator: a quoted string (also
// JSON-escaped \"...\") or an unquoted run. It returns an empty span when
// the value is not a plain literal. scheme reports that the value followed
// an auth scheme word ("Bearer xyz"), which makes it a literal credential.
func valueSpan(text string, v int) (vs, ve int, quoted, scheme bool) {
	n := len(text)
	for sp := 0; v < n && sp < 8 && (text[v] == ' ' || text[v] == '\t'); sp++ {
		v++
	}
	if v >= n {
		return 0, 0, false, false
	}
	v, esc := skipQuoteEscape(text, v)
	if isQuote(text[v]) {
		return quotedSpan(text, v+1, text[v], esc)
	}
	if esc {
		return 0, 0, false, false
	}
	return unquotedSpan(text, v)
}

// skipQuoteEscape reports whether a run of backslashes at v escapes a
// quote, and if so returns the quote's index.
func skipQuoteEscape(text string, v int) (int, bool) {
	if text[v] != '\\' {
		return v, false
	}
	b := v
	for b < len(text) && b-v < maxEscapeRun && text[b] == '\\' {
		b++
	}
	if b < len(text) && isQuote(text[b]) {
		return b, true
	}
	return v, false
}

// unquotedSpan locates an unquoted value starting at v; see valueSpan.
func unquotedSpan(text string, v int) (vs, ve int, quoted, scheme bool) {
	n := len(text)
	vs, ve = v, unquotedEnd(text, v)
	if ve < n && (text[ve] == '(' || text[ve] == '[') {
		return 0, 0, false, false // call or index expression: getToken(), m["k"]
	}
	if w := text[vs:ve]; ve < n && text[ve] == ' ' && isAuthScheme(w) {
		// "Authorization: Bearer abc..." redacts the credential after the
		// scheme word.
		vs = ve + 1
		ve = unquotedEnd(text, vs)
		scheme = true
	}
	return vs, ve, false, scheme
}

// quotedSpan scans a quoted value starting at v up to the closing quote q.
// In esc mode the quotes themselves are JSON-escaped, so the value ends at
// \q. Values containing whitespace are prose, not secrets, except after an
// auth scheme word ("Bearer xyz").
func quotedSpan(text string, v int, q byte, esc bool) (vs, ve int, quoted, scheme bool) {
	lim := min(len(text), v+maxValueLen)
	e := quotedEnd(text, v, lim, q, esc)
	if e < 0 || e >= lim {
		return 0, 0, false, false // a line break, unterminated or too long
	}
	vs, ve = v, e
	if sp := strings.IndexAny(text[vs:ve], " \t"); sp >= 0 {
		if !isAuthScheme(text[vs:vs+sp]) || strings.ContainsAny(text[vs+sp+1:ve], " \t") {
			return 0, 0, false, false
		}
		vs += sp + 1
		scheme = true
	}
	return vs, ve, true, scheme
}

// quotedEnd returns the index of the closing quote q (in esc mode, of the
// backslashes escaping it) of the value starting at v, lim when none comes
// before lim, or -1 when a line break, raw or escaped, comes first.
func quotedEnd(text string, v, lim int, q byte, esc bool) int {
	e := v
	for ; e < lim; e++ {
		c := text[e]
		if c == '\n' {
			return -1
		}
		if c == '\\' {
			last, closes := backslashRun(text, e, lim, q, esc)
			if closes {
				break
			}
			if last < 0 {
				return -1
			}
			e = last
			continue
		}
		if c == q && !esc {
			break
		}
	}
	return e
}

// backslashRun looks at the run of backslashes at e inside a quoted value.
// closes reports that in esc mode the run escapes the closing quote q;
// otherwise last is the index of the last byte the run covers (the byte an
// odd run escapes), or -1 when it escapes a line break.
func backslashRun(text string, e, lim int, q byte, esc bool) (last int, closes bool) {
	n := len(text)
	b := e
	for b < lim && text[b] == '\\' {
		b++
	}
	if esc && b < n && text[b] == q {
		return 0, true // the escaped closing quote
	}
	if (b-e)%2 == 0 {
		return b - 1, false // paired backslashes; text[b] is not escaped
	}
	if b < n && (text[b] == 'n' || text[b] == 'r') {
		return -1, false // an escaped line break: not one value
	}
	return b, false // an odd run escapes text[b]: skip it too
}

// unquotedEnd returns the end of an unquoted value starting at v.
func unquotedEnd(text string, v int) int {
	lim := min(len(text), v+maxValueLen+1)
	for e := v; e < lim; e++ {
		switch text[e] {
		case ' ', '\t', '\n', '\r', '"', '\'', '`', ',', ';', '(', ')', '[', ']', '{', '}', '<', '>', '\\', '&':
			return e
		}
	}
	return lim
}

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

func isAuthScheme(w string) bool {
	return strings.EqualFold(w, "bearer") || strings.EqualFold(w, "basic") || strings.EqualFold(w, "token")
}

// secretValue decides whether a value assigned to a secret-looking name is
// a real secret rather than a placeholder, reference, type or number.
// literal says the context makes an unquoted value a literal (shell,
// dotenv, YAML, INI, query string) rather than an identifier; env says
// it is a shell/dotenv assignment to an upper-case NAME, where even plain
// words are taken as secrets.
func secretValue(v string, quoted, literal, env bool) bool {
	if len(v) < minValueLen || len(v) > maxValueLen || isPlaceholder(v) {
		return false
	}
	digit, letter, symbol := valueMix(v)
	if !letter && !symbol || isNumberLiteral(v) {
		return false // a number: "max_tokens": 4096, DMAUTH = 0x08000000
	}
	if env {
		return true // API_TOKEN=correcthorsebattery, export X="..."
	}
	return codeSecret(v, digit, symbol, quoted, literal)
}

// codeSecret is secretValue's verdict outside shell/dotenv assignments,
// where words and unquoted identifiers are not secrets.
func codeSecret(v string, digit, symbol, quoted, literal bool) bool {
	if !symbol && isWordy(v) {
		// Words, not a secret: "test_client_secret", "PrivKeyVal",
		// "ollama", "legacy-token-1", "urn:...:token-type". This also
		// misses letters-only passwords outside env files, a price paid
		// for precision.
		return false
	}
	if quoted {
		return true
	}
	// Unquoted values in code are identifiers and expressions.
	if !literal && (isIdentifier(v) || isDottedRef(v)) {
		return false
	}
	return digit || symbol || strings.ContainsAny(v, "+/")
}

// valueMix reports which kinds of bytes v holds: digits, letters, and
// symbols other than the separators '_', '-', '.', ',', ':' and trailing
// base64 '=' padding.
func valueMix(v string) (digit, letter, symbol bool) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch cl := class[c]; {
		case cl&cDigit != 0:
			digit = true
		case cl&(cUpper|cLower) != 0:
			letter = true
		case c == '_' || c == '-' || c == '.' || c == ',' || c == ':':
		case c == '=' && strings.TrimRight(v[i:], "=") == "":
			// base64 padding
		default:
			symbol = true
		}
	}
	return digit, letter, symbol
}

// isIdentifier reports whether v has identifier syntax: [A-Za-z_$][\w$]*.
func isIdentifier(v string) bool {
	if class[v[0]]&cDigit != 0 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if class[v[i]]&cAlnumU == 0 && v[i] != '$' {
			return false
		}
	}
	return true
}

// isWordy reports whether v splits (at '-', '_', '.', ':' and camelCase
// boundaries) into letter-only words, optionally ending in a number:
// "client-valid-token-1", "KDFKeySecret", "supersecret".
func isWordy(v string) bool {
	v = strings.TrimRight(v, "=")
	for i := 0; i < len(v); {
		c := v[i]
		if c == '-' || c == '_' || c == '.' || c == ':' {
			i++
			continue
		}
		j := i
		for j < len(v) && class[v[j]]&(cUpper|cLower) != 0 {
			j++
		}
		if j == i {
			// Not a letter: only a final run of digits is allowed.
			return runEnd(v, i, cDigit) == len(v)
		}
		if j < len(v) && class[v[j]]&cDigit != 0 {
			// Digits glued to letters ("hunter2hunter2", "v4lue")
			// look like a password, unless they end the value.
			if runEnd(v, j, cDigit) != len(v) {
				return false
			}
		}
		i = j
	}
	return true
}

// isNumberLiteral reports whether v is a hex/octal/binary literal or a
// number with a unit-less exponent: 0x08000000, 0o755, 1e10.
func isNumberLiteral(v string) bool {
	if len(v) > 2 && v[0] == '0' && (v[1]|0x20 == 'x' || v[1]|0x20 == 'o' || v[1]|0x20 == 'b') {
		for i := 2; i < len(v); i++ {
			if class[v[i]]&cHex == 0 && v[i] != '_' {
				return false
			}
		}
		return true
	}
	return false
}

// isDottedRef reports whether v is a member access like config.Secret or
// process.env.TOKEN (identifier segments joined by dots).
func isDottedRef(v string) bool {
	if strings.IndexByte(v, '.') < 0 {
		return false
	}
	for seg := range strings.SplitSeq(v, ".") {
		if seg == "" || class[seg[0]]&cDigit != 0 {
			return false
		}
		for i := 0; i < len(seg); i++ {
			// '$' is an identifier byte in JS; '?' and '!' come from
			// optional chaining and TypeScript non-null assertions.
			if c := seg[i]; class[c]&cAlnumU == 0 && c != '$' && c != '?' && c != '!' {
				return false
			}
		}
	}
	return true
}

// isAWSSecret reports whether v has the shape of an AWS secret access key.
func isAWSSecret(v string) bool {
	if len(v) != 40 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if class[v[i]]&cB64 == 0 || v[i] == '=' {
			return false
		}
	}
	return true
}
