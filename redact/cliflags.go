package redact

import (
	"slices"
	"strings"
)

// Passwords given on a command line as a flag: `mysql -u root -pS3cret`,
// `mysql -p'two words'`, `mysqldump --password=…`, `sshpass -p S3cret ssh …`,
// `docker login --password …`. The env detector sees NAME=value pairs only,
// and `-pS3cret` has no separator at all, so these need their own rule:
// an attached -p value counts only after a MySQL-family command word in the
// same command (elsewhere -p is "parents", "patch", "port"…), sshpass's -p
// takes the next word too, and --password/--passwd takes its value after
// '=' or a space for any command. Values are taken whole: up to the next
// blank, or to the closing quote of a quoted one (JSON-escaped quotes
// included), so nothing of a password survives.

// mysqlCommands take an attached -p<password>.
var mysqlCommands = []string{"mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck", "mysqlpump", "mysqlsh", "mariadb", "mariadb-dump", "mariadb-admin"}

// cliCommandSpan bounds how far after a command word its flags are looked
// for (one command line).
const cliCommandSpan = 1000

func (s *scanner) cliPasswords() {
	text := s.text
	s.otherCommandPasswords()
	if !strings.Contains(text, "-p") && !strings.Contains(text, "--passw") {
		return
	}
	for i := 0; i < len(text); {
		k := strings.Index(text[i:], "--passw")
		if k < 0 {
			break
		}
		s.longPasswordFlag(i + k)
		i += k + 7
	}
	for _, cmd := range append([]string{"sshpass"}, mysqlCommands...) {
		for i := 0; i < len(text); {
			k := strings.Index(text[i:], cmd)
			if k < 0 {
				break
			}
			at := i + k
			i = at + len(cmd)
			if !commandWordAt(text, at, len(cmd)) {
				continue
			}
			s.shortPasswordFlags(at+len(cmd), cmd == "sshpass")
		}
	}
}

// commandWordAt reports whether text[at:at+n] is a whole command word: at
// the start, after a blank, a path separator, a quote or a shell operator,
// and followed by a blank.
func commandWordAt(text string, at, n int) bool {
	if at > 0 {
		switch text[at-1] {
		case ' ', '\t', '\n', '/', '"', '\'', '`', ';', '|', '&', '(', '$':
		case 'n', 't':
			if at < 2 || text[at-2] != '\\' { // a JSON-escaped newline or tab
				return false
			}
		default:
			return false
		}
	}
	e := at + n
	return e < len(text) && (text[e] == ' ' || text[e] == '\t')
}

// shortPasswordFlags redacts the value of -p<value> (and, for sshpass, of
// "-p <value>") among the arguments that follow a command word at p.
func (s *scanner) shortPasswordFlags(p int, spaced bool) {
	text := s.text
	end := min(len(text), p+cliCommandSpan)
	for i := p; i < end; i++ {
		switch text[i] {
		case '\n', ';', '|', '&':
			return // the command ended
		case '\\':
			if i+1 < len(text) && (text[i+1] == 'n' || text[i+1] == 'r') {
				return // a JSON-escaped newline
			}
		case '-':
			if s.shortPasswordFlag(i, spaced) {
				return
			}
		}
	}
}

// shortPasswordFlag redacts the value of a -p flag at i, and says whether
// there was one.
func (s *scanner) shortPasswordFlag(i int, spaced bool) bool {
	text := s.text
	if i == 0 || (text[i-1] != ' ' && text[i-1] != '\t') || i+1 >= len(text) || text[i+1] != 'p' {
		return false
	}
	v := i + 2
	if v < len(text) && (text[v] == ' ' || text[v] == '\t') {
		if !spaced {
			return false // mysql -p alone asks for the password
		}
		for v < len(text) && (text[v] == ' ' || text[v] == '\t') {
			v++
		}
	}
	vs, ve := flagValue(text, v)
	if ve <= vs {
		return false
	}
	s.add(KindCLIPassword, vs, ve)
	return true
}

// longPasswordFlag redacts the value of --password=<value>,
// --password <value>, --passwd… at p (which points at "--passw").
func (s *scanner) longPasswordFlag(p int) {
	text := s.text
	if p > 0 && text[p-1] != ' ' && text[p-1] != '\t' && text[p-1] != '"' && text[p-1] != '\'' {
		return
	}
	n := runEnd(text, p+2, cWord)
	name := strings.ToLower(text[p+2 : n])
	if name != "password" && name != "passwd" {
		return
	}
	v, ok := longFlagValue(text, n)
	if !ok {
		return
	}
	if vs, ve := flagValue(text, v); ve > vs && !placeholderValue(text[vs:ve]) {
		s.add(KindCLIPassword, vs, ve)
	}
}

// longFlagValue is where the value of a long flag whose name ends at n
// starts: after '=' or a space. It is false when the flag has no value
// there (the program then asks for the password).
func longFlagValue(text string, n int) (int, bool) {
	if n >= len(text) {
		return 0, false
	}
	switch text[n] {
	case '=':
		return n + 1, true
	case ' ':
		if n+1 < len(text) && text[n+1] == '-' {
			return 0, false // the next flag
		}
		return n + 1, true
	}
	return 0, false
}

// flagValue is the span of a flag value starting at v: a quoted value
// (quotes included, JSON-escaped quotes too) or a run up to a blank.
func flagValue(text string, v int) (int, int) {
	if v >= len(text) {
		return v, v
	}
	if e, ok := quotedValueEnd(text, v); ok {
		return v, e
	}
	e := v
	for e < len(text) && !endsValue(text, e) {
		e++
	}
	return v, e
}

// quotedValueEnd is the end of a quoted value at v ('…', "…", or \"…\"
// inside JSON), closing quote included, when it is one.
func quotedValueEnd(text string, v int) (int, bool) {
	q := text[v]
	switch {
	case q == '\'' || q == '"':
		if e := strings.IndexByte(text[v+1:], q); e >= 0 {
			return v + 1 + e + 1, true
		}
	case q == '\\' && v+1 < len(text) && text[v+1] == '"': // \"…\" inside JSON
		if e := strings.Index(text[v+2:], `\"`); e >= 0 {
			return v + 2 + e + 2, true
		}
	}
	return 0, false
}

// endsValue says whether the byte at e ends an unquoted value: a blank, a
// quote, a shell operator, or a JSON escape.
func endsValue(text string, e int) bool {
	switch text[e] {
	case ' ', '\t', '\n', '"', '`', ';', '|', '&', ')':
		return true
	case '\\':
		return e+1 < len(text) && (text[e+1] == 'n' || text[e+1] == 't' || text[e+1] == '"')
	}
	return false
}

// placeholderValue reports values that stand for a password without being
// one: a shell or template variable.
func placeholderValue(v string) bool {
	v = strings.Trim(v, `'"\`)
	return v == "" || strings.HasPrefix(v, "$") || strings.HasPrefix(v, "<") || strings.HasPrefix(v, "{{") || strings.HasPrefix(v, "%")
}

// Other commands that take a password as an argument:
//   - curl -u user:<pw>, -uuser:<pw>, --user user:<pw>, --user=user:<pw>
//     (without ":<pw>" curl asks for it), and --proxy-user alike;
//   - redis-cli -a <pw> and --pass <pw>;
//   - htpasswd -b[other flags] file user <pw>, and -nb user <pw> (no file).
//
// Each is looked for only after its command word, up to the end of that
// command.
var argCommands = []string{"curl", "redis-cli", "htpasswd"}

// span is one argument of a command line: [start, end) in the text,
// quotes included.
type span struct{ start, end int }

func (s *scanner) otherCommandPasswords() {
	text := s.text
	for _, c := range argCommands {
		for i := 0; i < len(text); {
			k := strings.Index(text[i:], c)
			if k < 0 {
				break
			}
			at := i + k
			i = at + len(c)
			if !commandWordAt(text, at, len(c)) {
				continue
			}
			// A switch, not a table of funcs: an indirect call would make
			// the scanner escape to the heap on every Redact.
			var buf [32]span
			args := commandArgs(text, at+len(c), buf[:0])
			switch c {
			case "curl":
				curlUser(s, args)
			case "redis-cli":
				redisPass(s, args)
			case "htpasswd":
				htpasswdPass(s, args)
			}
		}
	}
}

// commandArgs splits the arguments after a command word at p, up to the
// end of the command (a newline, JSON-escaped or not, or ; | &), into
// out (at most its capacity: the arguments a password can be among).
func commandArgs(text string, p int, out []span) []span {
	end := min(len(text), p+cliCommandSpan)
	for i := p; i < end && len(out) < cap(out); {
		skip, ended := argGap(text, i)
		if ended {
			return out
		}
		if skip > 0 {
			i += skip
			continue
		}
		vs, ve := flagValue(text, i)
		if ve <= vs {
			return out
		}
		out = append(out, span{vs, ve})
		i = ve
	}
	return out
}

// argGap says what the bytes at i are between a command's arguments: how
// many to skip (a blank, or a line continued by a backslash; 0 at an
// argument), or that the command ends there (a newline, JSON-escaped or
// not, or ; | &).
func argGap(text string, i int) (skip int, ended bool) {
	switch c := text[i]; {
	case c == ' ' || c == '\t':
		return 1, false
	case c == '\n' || c == ';' || c == '|' || c == '&':
		return 0, true
	case c == '\\' && i+1 < len(text) && (text[i+1] == 'n' || text[i+1] == 'r'):
		return 0, true
	case c == '\\' && i+1 < len(text) && text[i+1] == ' ':
		return 2, false // a line continued
	}
	return 0, false
}

// unquoted is the span of a value without its quotes (plain or
// JSON-escaped).
func unquoted(text string, a span) span {
	v := text[a.start:a.end]
	switch {
	case len(v) >= 4 && strings.HasPrefix(v, `\"`) && strings.HasSuffix(v, `\"`):
		return span{a.start + 2, a.end - 2}
	case len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0]:
		return span{a.start + 1, a.end - 1}
	}
	return a
}

// addValue redacts a password value unless it is a placeholder.
func (s *scanner) addValue(v span) {
	if v.end > v.start && !placeholderValue(s.text[v.start:v.end]) && !strings.HasPrefix(s.text[v.start:v.end], "[redacted:") {
		s.add(KindCLIPassword, v.start, v.end)
	}
}

// curlUser redacts the password of curl's -u/--user user:password.
func curlUser(s *scanner, args []span) {
	for i := range args {
		v, ok := curlUserValue(s.text, args, i)
		if !ok {
			continue
		}
		if c := strings.IndexByte(s.text[v.start:v.end], ':'); c >= 0 {
			s.addValue(span{v.start + c + 1, v.end})
		}
	}
}

// curlUserFlags are curl's flags that take user:password as the next
// argument.
var curlUserFlags = []string{"-u", "--user", "--proxy-user", "-U"}

// curlUserValue is the user:password value of curl's argument i when it
// is a -u, -U, --user or --proxy-user flag: the next argument, or what
// the flag has attached (after '=' for the long ones).
func curlUserValue(text string, args []span, i int) (span, bool) {
	a := args[i]
	arg := text[a.start:a.end]
	switch {
	case slices.Contains(curlUserFlags, arg):
		if i+1 >= len(args) {
			return span{}, false
		}
		return unquoted(text, args[i+1]), true
	case strings.HasPrefix(arg, "--user=") || strings.HasPrefix(arg, "--proxy-user="):
		v := unquoted(text, span{a.start + strings.IndexByte(arg, '=') + 1, a.end})
		if v.start == v.end && i+1 < len(args) && args[i+1].start == a.end {
			v = unquoted(text, args[i+1]) // --user="name:pw"
		}
		return v, true
	case (strings.HasPrefix(arg, "-u") || strings.HasPrefix(arg, "-U")) && len(arg) > 2 && arg[2] != '-':
		return unquoted(text, span{a.start + 2, a.end}), true
	}
	return span{}, false
}

// redisPass redacts redis-cli's -a/--pass password.
func redisPass(s *scanner, args []span) {
	text := s.text
	for i, a := range args {
		arg := text[a.start:a.end]
		switch {
		case (arg == "-a" || arg == "--pass") && i+1 < len(args):
			s.addValue(unquoted(text, args[i+1]))
		case strings.HasPrefix(arg, "--pass="):
			s.addValue(unquoted(text, span{a.start + len("--pass="), a.end}))
		}
	}
}

// htpasswdPass redacts the password htpasswd takes in batch mode (-b): the
// last of its file, user and password (user and password with -n).
func htpasswdPass(s *scanner, args []span) {
	text := s.text
	batch, noFile := false, false
	var pos []span
	for i := 0; i < len(args); i++ {
		arg := text[args[i].start:args[i].end]
		if len(arg) > 1 && arg[0] == '-' {
			batch = batch || strings.ContainsRune(arg[1:], 'b')
			noFile = noFile || strings.ContainsRune(arg[1:], 'n')
			if strings.ContainsAny(arg[1:], "Cr") {
				i++ // -C cost, -r rounds take a number
			}
			continue
		}
		pos = append(pos, args[i])
	}
	want := 3
	if noFile {
		want = 2
	}
	if batch && len(pos) >= want {
		s.addValue(unquoted(text, pos[want-1]))
	}
}
