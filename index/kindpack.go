package index

import (
	"strconv"
	"strings"
)

// An entry's type, role and block kind are stored as a one-byte code when
// they are one of the words below (all but the rarest), else as the word
// itself; the entries view gives the word back (kindCase), so readers see
// what was read. The columns keep their TEXT affinity, so a code is a
// one-character text: a control character, which no word is. On the 1 GB
// corpus ~22 bytes a row become 3: entries_raw 93.0 -> 88.3 MB (schema 17).
//
// The codes are fixed forever (stored rows and the view of schema 17 hold
// them): append new words, never reorder, and give a new word a migration
// that recreates the view (until then the view passes its code through).
// A row is looked up by its code (packKind), against entries_raw.
var kindWords = []string{
	1:  roleUser,
	2:  roleAssistant,
	3:  roleSystem,
	4:  roleTool,
	5:  "queue-operation",
	6:  "text",
	7:  "thinking",
	8:  "redacted_thinking",
	9:  "tool_use",
	10: "tool_result",
	11: "image",
	12: "document",
	13: "server_tool_use",
}

var kindCodes = func() map[string]string {
	m := make(map[string]string, len(kindWords))
	for c, w := range kindWords {
		if w != "" {
			m[w] = string(rune(c))
		}
	}
	return m
}()

// packKind is what to store for a type, role or block word: its code when
// it has one, else the word.
func packKind(w string) string {
	if c, ok := kindCodes[w]; ok {
		return c
	}
	return w
}

// kindCase is the SQL expression that reads column col back as its word,
// for the codes below n.
func kindCase(col string, n int) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for c, w := range kindWords[:n] {
		if w != "" {
			b.WriteString(" WHEN char(" + strconv.Itoa(c) + ") THEN '" + w + "'")
		}
	}
	b.WriteString(" ELSE " + col + " END")
	return b.String()
}

// kindPackCase is the SQL expression that packs column col's word, for the
// codes below n (schema 17 packs the rows stored before).
func kindPackCase(col string, n int) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for c, w := range kindWords[:n] {
		if w != "" {
			b.WriteString(" WHEN '" + w + "' THEN char(" + strconv.Itoa(c) + ")")
		}
	}
	b.WriteString(" ELSE " + col + " END")
	return b.String()
}
