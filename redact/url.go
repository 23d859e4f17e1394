package redact

const maxUserinfo = 256

// url handles "scheme://user:password@host" where p is the ':' of "://".
// Only the password is redacted so the user and host stay searchable.
func (s *scanner) url(p int) {
	text := s.text
	if p == 0 || class[text[p-1]]&(cUpper|cLower|cDigit) == 0 {
		return // no scheme
	}
	ps, pe := passwordSpan(text, p+3)
	if pe <= ps {
		return
	}
	pw := text[ps:pe]
	if isPlaceholder(pw) || (len(pw) <= 5 && allDigits(pw)) {
		// "host:8080@..." is a port, not a password.
		return
	}
	s.add(KindURLPassword, ps, pe)
}

// passwordSpan returns the password of the "user:password@host" userinfo
// starting at u, or an empty span when there is none.
func passwordSpan(text string, u int) (ps, pe int) {
	ue := userinfoEnd(text, u)
	if ue >= len(text) || text[ue] != ':' {
		return 0, 0
	}
	ps = ue + 1
	pe = userinfoEnd(text, ps)
	if pe >= len(text) || text[pe] != '@' || pe == ps {
		return 0, 0
	}
	// The host must follow; otherwise this is not authority syntax.
	if pe+1 >= len(text) || (class[text[pe+1]]&cAlnum == 0 && text[pe+1] != '[') {
		return 0, 0
	}
	return ps, pe
}

// userinfoEnd returns the end of a user or password field starting at i:
// the first byte that cannot appear unencoded in one. '[' and ']' are
// excluded so our own "[redacted:...]" placeholders never look like a
// password on a second pass.
func userinfoEnd(text string, i int) int {
	lim := min(len(text), i+maxUserinfo)
	for ; i < lim; i++ {
		switch text[i] {
		case ' ', '\t', '\n', '\r', ':', '/', '@', '?', '#', '"', '\'', '`', '<', '>', '\\', '[', ']', '{', '}', '|':
			return i
		}
	}
	return i
}

func allDigits(v string) bool {
	for i := 0; i < len(v); i++ {
		if class[v[i]]&cDigit == 0 {
			return false
		}
	}
	return true
}
