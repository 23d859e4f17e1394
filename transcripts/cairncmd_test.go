package transcripts

import "testing"

func TestIsCairnCommand(t *testing.T) {
	for text, want := range map[string]bool{
		"<command-message>recall</command-message>\n<command-name>/recall</command-name>\n<command-args>x</command-args>": true,
		"<command-message>cairn:remember</command-message>\n<command-name>/cairn:remember</command-name>":                 true,
		"<command-name>/summarize</command-name>":                                             true,
		"<command-name>/synthesize</command-name>":                                            true,
		"<command-message>compact</command-message>\n<command-name>/compact</command-name>":   false,
		"<command-name>/recallx</command-name>":                                               false,
		"/recall why does mix test hang":                                                      true,
		"/cairn:summarize\nstress the CI fix":                                                 true,
		"/review the diff":                                                                    false,
		"# cairn /recall\n\nThe user's query":                                                 true,
		"# cairn: recall \"x\" in /p\n\n## Matching approved memories":                        true,
		"# cairn: memory of /p":                                                               true,
		"The user wants cairn to remember this: x":                                            true,
		"Write a structured summary of this session so far. cairn stores it as a draft; once": true,
		"## Project memory\n...\nAbove is the output of `cairn synthesize` for this project: the project memory": true,
		"please recall why the cairn index is slow":                                                              false,
		"# cairn\n\nREADME of this project":                                                                      false,
	} {
		if got := IsCairnCommand(text); got != want {
			t.Errorf("IsCairnCommand(%q) = %v, want %v", text, got, want)
		}
	}
}
